package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// SteerRun implements hitl.RunStore. bbolt has one writer at a time, so the
// calls of one request key are serialised with every other write.
func (db *DB) SteerRun(ctx context.Context, id string, key hitl.ControlKey, fn func(run *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	return db.updateRun(ctx, id, key, fn)
}

// updateRun is UpdateRun, with the record of the control request key
// names handed to fn when key has a request id.
func (db *DB) updateRun(ctx context.Context, id string, key hitl.ControlKey, fn func(*hitl.Run, *hitl.ControlRecord) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var (
		stored *hitl.Run
		domErr error
	)
	err := db.write(func(tx *bolt.Tx) error {
		stored, domErr = nil, nil
		run, err := getRun(tx, id)
		if err != nil {
			return err
		}
		var prior *hitl.ControlRecord
		if key.RequestID != "" {
			if prior, err = getControl(tx, key); err != nil {
				return err
			}
		}
		var arg *hitl.Run
		if run != nil {
			c := *run
			arg = &c
		}
		u, err := fn(arg, prior)
		if err != nil {
			domErr = err
			return errNothing
		}
		if u.Run == nil && len(u.Events) == 0 && u.Control == nil {
			stored = run
			return errNothing
		}
		if u.Run != nil {
			if u.Run.ID != id {
				domErr = fmt.Errorf("store: update run %s: fn returned run %q", id, u.Run.ID)
				return errNothing
			}
			if err := putRun(tx, u.Run); err != nil {
				return err
			}
			run = u.Run
		}
		for _, ev := range u.Events {
			if run != nil {
				ev.Status, ev.Asker = run.Status(), run.Asker
			}
			if err := appendEvent(tx, ev); err != nil {
				return err
			}
		}
		if u.Control != nil {
			if err := putControl(tx, u.Control); err != nil {
				return err
			}
		}
		stored = run
		return nil
	})
	if err != nil && !errors.Is(err, errNothing) {
		return nil, fmt.Errorf("store: update run %s: %w", id, err)
	}
	return stored, domErr
}

// getControl reads the control record held under key, nil when there is
// none.
func getControl(tx *bolt.Tx, key hitl.ControlKey) (*hitl.ControlRecord, error) {
	return getRecord[hitl.ControlRecord](tx, bucketControl, controlKey(key), "control record")
}

// putControl stores rec under its key (hitl.ControlRecord.Key), and in
// control_age by when it was received.
func putControl(tx *bolt.Tx, rec *hitl.ControlRecord) error {
	k := controlKey(rec.Key())
	if v := tx.Bucket(bucketControl).Get(k); v != nil {
		var old hitl.ControlRecord
		if json.Unmarshal(v, &old) == nil && !old.At.Equal(rec.At) {
			if err := tx.Bucket(bucketControlAge).Delete(timeIDKey(old.At, string(k))); err != nil {
				return err
			}
		}
	}
	if err := tx.Bucket(bucketControlAge).Put(timeIDKey(rec.At, string(k)), []byte{}); err != nil {
		return fmt.Errorf("index control record %q: %w", rec.RequestID, err)
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode control record %q: %w", rec.RequestID, err)
	}
	if err := tx.Bucket(bucketControl).Put(k, data); err != nil {
		return fmt.Errorf("put control record %q: %w", rec.RequestID, err)
	}
	return nil
}
