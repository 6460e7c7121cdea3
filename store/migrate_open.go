package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// migrateOpen is schema 8's step: runs_active holds every open run
// (hitl.Run.Open), where earlier versions held the running and paused
// ones only; a run waiting on a person is added. It reads each run record
// once: a file holds far fewer runs than questions.
func migrateOpen(tx *bolt.Tx) error {
	active := tx.Bucket(bucketRunsActive)
	return tx.Bucket(bucketRuns).ForEach(func(k, _ []byte) error {
		run, err := getRun(tx, string(k))
		if err != nil {
			return err
		}
		if run == nil || !run.Open() {
			return nil
		}
		if err := active.Put(k, []byte{}); err != nil {
			return fmt.Errorf("index run %s: %w", k, err)
		}
		return nil
	})
}
