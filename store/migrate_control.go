package store

import (
	"encoding/json"
	"fmt"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// migrateControl is schema 8's step: a control request id is held per
// principal (hitl.ControlKeyOf), under principal ‖ 0x00 ‖ request id,
// where earlier versions held it under the request id alone, for anyone.
// Every record is moved to its key and control_age is rebuilt to match;
// its cost grows with the records kept (retention prunes them).
func migrateControl(tx *bolt.Tx) error {
	b := tx.Bucket(bucketControl)
	if b == nil {
		return nil // a file from before control records: created at open
	}
	var recs []*hitl.ControlRecord
	err := b.ForEach(func(k, v []byte) error {
		rec := new(hitl.ControlRecord)
		if err := json.Unmarshal(v, rec); err != nil {
			return fmt.Errorf("decode control record %q: %w", k, err)
		}
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		return err
	}
	for _, name := range [][]byte{bucketControl, bucketControlAge} {
		if tx.Bucket(name) != nil {
			if err := tx.DeleteBucket(name); err != nil {
				return fmt.Errorf("reset %s: %w", name, err)
			}
		}
		if _, err := tx.CreateBucket(name); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
	}
	for _, rec := range recs {
		if err := putControl(tx, rec); err != nil {
			return err
		}
	}
	return nil
}

// checkControl checks that every control record is held under its key
// and that control_age holds exactly one entry per record.
func checkControl(tx *bolt.Tx, report func(error)) {
	age := map[string]string{}
	err := tx.Bucket(bucketControl).ForEach(func(k, v []byte) error {
		var rec hitl.ControlRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			report(fmt.Errorf("control record %q: %w", k, err))
			return nil
		}
		if want := controlKey(rec.Key()); string(want) != string(k) {
			report(fmt.Errorf("control record of %s's request %q is under key %q, want %q", rec.By, rec.RequestID, k, want))
		}
		age[string(timeIDKey(rec.At, string(k)))] = ""
		return nil
	})
	if err != nil {
		report(err)
	}
	compareIndexes(tx, map[string]map[string]string{string(bucketControlAge): age}, "control record", report)
}
