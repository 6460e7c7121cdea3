package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketByReminder indexes pending questions by when their next reminder
// or escalation is due: next ‖ id → "" (indexOf keeps it current).
var bucketByReminder = []byte("by_reminder")

// DueReminders implements hitl.Store: it reads by_reminder from its start
// up to now, so its cost grows with the number due.
func (db *DB) DueReminders(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("store: due reminders: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	end := timeKey(now)
	ids := []string{}
	c := tx.Bucket(bucketByReminder).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(k) < 8 || binary.BigEndian.Uint64(k) > end {
			break
		}
		ids = append(ids, idAfter(k, 8))
		if limit > 0 && len(ids) == limit {
			break
		}
	}
	return ids, nil
}

// buildReminderIndex builds schema 5's by_reminder from the questions.
func buildReminderIndex(tx *bolt.Tx) error {
	if tx.Bucket(bucketByReminder) != nil {
		if err := tx.DeleteBucket(bucketByReminder); err != nil {
			return fmt.Errorf("reset %s: %w", bucketByReminder, err)
		}
	}
	b, err := tx.CreateBucket(bucketByReminder)
	if err != nil {
		return fmt.Errorf("create %s: %w", bucketByReminder, err)
	}
	c := tx.Bucket(bucketQuestions).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		q, err := decodeQuestion(string(k), v)
		if err != nil {
			return err
		}
		for _, e := range indexOf(q) {
			if string(e.bucket) == string(bucketByReminder) {
				if err := b.Put(e.key, []byte{}); err != nil {
					return fmt.Errorf("put %s entry of question %s: %w", bucketByReminder, q.ID, err)
				}
			}
		}
	}
	return nil
}
