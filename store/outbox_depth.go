package store

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// QueueLength implements hitl.Outbox: it counts the keys of the queue.
func (db *DB) QueueLength(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n := 0
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketSlackTasks).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: count queued deliveries: %w", err)
	}
	return n, nil
}
