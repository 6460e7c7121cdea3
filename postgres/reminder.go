package postgres

import (
	"context"
	"math"
	"time"
)

// dueRemindersSQL reads the due reminders: questions_by_reminder from its
// start.
const dueRemindersSQL = `SELECT id FROM questions WHERE remind_ns <= $1 ORDER BY remind_ns, id LIMIT $2`

// DueReminders implements hitl.ReminderStore: questions_by_reminder from its
// start, so its cost grows with the number due.
func (db *DB) DueReminders(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if limit <= 0 {
		limit = math.MaxInt32
	}
	ids, err := texts(ctx, db.pool, dueRemindersSQL, ns(now), limit)
	if err != nil {
		return nil, classify("due reminders", err)
	}
	return ids, nil
}
