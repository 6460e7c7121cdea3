package store

import (
	"context"
	"time"
)

// bucketByReminder indexes pending questions by when their next reminder
// or escalation is due: next ‖ id → "" (indexOf keeps it current).
var bucketByReminder = []byte("by_reminder")

// DueReminders implements hitl.ReminderStore: it reads by_reminder from its start
// up to now, so its cost grows with the number due.
func (db *DB) DueReminders(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return db.dueIn(ctx, bucketByReminder, now, limit)
}
