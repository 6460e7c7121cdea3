package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/policy"
	bolt "go.etcd.io/bbolt"
)

// UpdateRun implements hitl.RunStore.
func (db *DB) UpdateRun(ctx context.Context, id string, fn func(run *hitl.Run) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	return db.updateRun(ctx, id, hitl.ControlKey{}, func(run *hitl.Run, _ *hitl.ControlRecord) (hitl.RunUpdate, error) { return fn(run) })
}

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

// Runs implements hitl.RunStore. Active runs are read from their own index,
// so listing them costs what the page holds.
func (db *DB) Runs(ctx context.Context, active bool, limit int, cursor string) (hitl.RunPage, error) {
	if err := ctx.Err(); err != nil {
		return hitl.RunPage{}, err
	}
	if limit <= 0 || limit > hitl.MaxPageSize {
		limit = hitl.DefaultPageSize
	}
	var after []byte
	if cursor != "" {
		var err error
		if after, err = base64.RawURLEncoding.DecodeString(cursor); err != nil {
			return hitl.RunPage{}, fault.Errorf(fault.EINVALID, "cursor %q is not one of this list's", cursor)
		}
	}
	page := hitl.RunPage{Runs: []*hitl.Run{}}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		bucket := bucketRuns
		if active {
			bucket = bucketRunsActive
		}
		c := tx.Bucket(bucket).Cursor()
		k, _ := c.First()
		if after != nil {
			if k, _ = c.Seek(after); bytes.Equal(k, after) {
				k, _ = c.Next()
			}
		}
		for ; k != nil; k, _ = c.Next() {
			if len(page.Runs) == limit {
				page.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(page.Runs[len(page.Runs)-1].ID))
				return nil
			}
			run, err := getRun(tx, string(k))
			if err != nil {
				return err
			}
			if run != nil {
				page.Runs = append(page.Runs, run)
			}
		}
		return nil
	})
	if err != nil {
		return hitl.RunPage{}, fmt.Errorf("store: list runs: %w", err)
	}
	return page, nil
}

var keyPolicy = []byte("policy")

// PolicyState implements hitl.PolicyStore.
func (db *DB) PolicyState(ctx context.Context) (*policy.State, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var st *policy.State
	err := db.bolt.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(keyPolicy)
		if v == nil {
			return nil
		}
		st = &policy.State{}
		return json.Unmarshal(v, st)
	})
	if err != nil {
		return nil, fmt.Errorf("store: read policy: %w", err)
	}
	return st, nil
}

// PutPolicyState implements hitl.PolicyStore.
func (db *DB) PutPolicyState(ctx context.Context, st *policy.State, evs ...*hitl.Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("store: encode policy: %w", err)
	}
	if err := db.write(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketMeta).Put(keyPolicy, data); err != nil {
			return err
		}
		return appendEvents(tx, evs)
	}); err != nil {
		return fmt.Errorf("store: write policy: %w", err)
	}
	return nil
}
