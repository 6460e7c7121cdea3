package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// migrate brings a file of schema version from up to SchemaVersion, in the
// transaction that opens it (all or nothing).
//
// 1 → 2: runs became records and lists got indexes (by status, creation,
// asker, assignee, responder, settling time, a run's pending questions);
// the old pending index is dropped. Every index and run is rebuilt from
// the questions, once.
//
// 2 → 3: idempotency keys are held per asker (hitl.KeyOf): the idem
// index is rebuilt from the questions.
func migrate(tx *bolt.Tx, from uint64) error {
	if from < 2 {
		if tx.Bucket([]byte("pending")) != nil {
			if err := tx.DeleteBucket([]byte("pending")); err != nil {
				return fmt.Errorf("migrate: drop pending: %w", err)
			}
		}
		for _, name := range append(indexBuckets, bucketRuns, bucketRunsActive, bucketCounts) {
			if tx.Bucket(name) != nil {
				if err := tx.DeleteBucket(name); err != nil {
					return fmt.Errorf("migrate: reset %s: %w", name, err)
				}
			}
			if _, err := tx.CreateBucket(name); err != nil {
				return fmt.Errorf("migrate: create %s: %w", name, err)
			}
		}
		c := tx.Bucket(bucketQuestions).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			q, err := decodeQuestion(string(k), v)
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			if err := count(tx, nil, q); err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			if err := moveIndexes(tx, q.ID, nil, indexOf(q)); err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			if _, err := trackRun(tx, nil, q, q.CreatedAt); err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
		}
	} else if from < 3 {
		if err := tx.DeleteBucket(bucketIdem); err != nil {
			return fmt.Errorf("migrate: reset %s: %w", bucketIdem, err)
		}
		idem, err := tx.CreateBucket(bucketIdem)
		if err != nil {
			return fmt.Errorf("migrate: create %s: %w", bucketIdem, err)
		}
		c := tx.Bucket(bucketQuestions).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			q, err := decodeQuestion(string(k), v)
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			for _, e := range indexOf(q) {
				if string(e.bucket) == string(bucketIdem) {
					if err := idem.Put(e.key, e.value); err != nil {
						return fmt.Errorf("migrate: %w", err)
					}
				}
			}
		}
	}
	return tx.Bucket(bucketMeta).Put(keySchema, u64(SchemaVersion))
}
