package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
)

// Run implements hitl.RunStore.
func (db *DB) Run(ctx context.Context, id string) (*hitl.Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var run *hitl.Run
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		run, err = getRun(tx, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	if run == nil {
		return nil, fault.Errorf(fault.ENOTFOUND, "no run is named %s", id)
	}
	return run, nil
}

// getRun decodes run id, or returns nil when there is none.
func getRun(tx *bolt.Tx, id string) (*hitl.Run, error) {
	v := tx.Bucket(bucketRuns).Get([]byte(id))
	if v == nil {
		return nil, nil
	}
	var run hitl.Run
	if err := json.Unmarshal(v, &run); err != nil {
		return nil, fmt.Errorf("decode run %s: %w", id, err)
	}
	return &run, nil
}

func putRun(tx *bolt.Tx, run *hitl.Run) error {
	old, err := getRun(tx, run.ID)
	if err != nil {
		return err
	}
	return replaceRun(tx, old, run)
}

// replaceRun writes run over old, the record as stored (nil: none), which
// the caller has already decoded.
func replaceRun(tx *bolt.Tx, old, run *hitl.Run) error {
	if err := indexEnded(tx, old, run); err != nil {
		return err
	}
	run.Version++
	data, err := json.Marshal(run)
	if err != nil {
		return fmt.Errorf("encode run %s: %w", run.ID, err)
	}
	if err := tx.Bucket(bucketRuns).Put([]byte(run.ID), data); err != nil {
		return fmt.Errorf("put run %s: %w", run.ID, err)
	}
	active := tx.Bucket(bucketRunsActive)
	if run.Open() {
		if old.Open() {
			return nil // already indexed
		}
		err = active.Put([]byte(run.ID), []byte{})
	} else {
		err = active.Delete([]byte(run.ID))
	}
	if err != nil {
		return fmt.Errorf("index run %s: %w", run.ID, err)
	}
	return nil
}

// ended reports whether a run's loop is over.
func ended(run *hitl.Run) bool { return run != nil && run.Control.Status.Ended() }

// indexEnded moves a run's runs_ended entry (ended runs by last change)
// from old (nil: new) to cur (nil: deleted).
func indexEnded(tx *bolt.Tx, old, cur *hitl.Run) error {
	b := tx.Bucket(bucketRunsEnded)
	if ended(old) {
		if err := b.Delete(timeIDKey(old.UpdatedAt, old.ID)); err != nil {
			return err
		}
	}
	if ended(cur) {
		return b.Put(timeIDKey(cur.UpdatedAt, cur.ID), []byte{})
	}
	return nil
}

// deleteRun removes run id's record, its indexes, and where its live
// message was posted.
func deleteRun(tx *bolt.Tx, id string) error {
	old, err := getRun(tx, id)
	if err != nil {
		return err
	}
	if err := indexEnded(tx, old, nil); err != nil {
		return err
	}
	if err := tx.Bucket(bucketRunsActive).Delete([]byte(id)); err != nil {
		return err
	}
	if err := deleteSlackRecords(tx, "run:"+id); err != nil {
		return err
	}
	return tx.Bucket(bucketRuns).Delete([]byte(id))
}

// trackRun moves q's run from question old (nil for a new question) to q,
// in the transaction that writes q, after q's index entries moved. When
// the question the run waited on stops waiting, the next is the oldest
// pending one it waits on, read from run_pending.
func trackRun(tx *bolt.Tx, old, q *hitl.Question, at time.Time) (*hitl.Run, error) {
	run, err := getRun(tx, q.RunID)
	if err != nil {
		return nil, err
	}
	var stored *hitl.Run // what replaceRun moves the indexes from
	if run == nil {
		run = &hitl.Run{}
	} else {
		prev := *run // the fields indexEnded reads are values, not shared
		stored = &prev
	}
	run.Track(old, q, at)
	if err := nextWaitingOn(tx, run); err != nil {
		return nil, err
	}
	return run, replaceRun(tx, stored, run)
}

// nextWaitingOn sets run.WaitingOn when it waits on a question but names
// none: the first entry of the run's pending index that it waits on.
func nextWaitingOn(tx *bolt.Tx, run *hitl.Run) error {
	if run.WaitingOn != nil || run.PendingInput+run.PendingApproval == 0 {
		return nil
	}
	prefix := runPrefix(run.ID)
	c := tx.Bucket(bucketRunPending).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if len(v) != 1 || v[0] != 1 {
			continue
		}
		q, err := getQuestion(tx, idAfter(k, len(prefix)+8))
		if err != nil {
			return fmt.Errorf("run_pending entry %x: %w", k, err)
		}
		run.WaitingOn = &hitl.PendingQuestion{QuestionID: q.ID, Question: q.Question, Timestamp: q.CreatedAt}
		return nil
	}
	return nil
}

// count moves the per-status counts from old (nil: new) to cur (nil:
// deleted).
func count(tx *bolt.Tx, old, cur *hitl.Question) error {
	if old != nil && cur != nil && old.Status == cur.Status {
		return nil
	}
	b := tx.Bucket(bucketCounts)
	add := func(st hitl.Status, d int64) error {
		var n uint64
		if v := b.Get([]byte(st)); len(v) == 8 {
			n = binary.BigEndian.Uint64(v)
		}
		return b.Put([]byte(st), u64(uint64(int64(n)+d)))
	}
	if old != nil {
		if err := add(old.Status, -1); err != nil {
			return err
		}
	}
	if cur != nil {
		return add(cur.Status, +1)
	}
	return nil
}

// RunsByPrefix implements hitl.RunStore: a seek in the runs bucket.
func (db *DB) RunsByPrefix(ctx context.Context, prefix string, limit int) ([]*hitl.Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	runs := []*hitl.Run{}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketRuns).Cursor()
		p := []byte(prefix)
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(runs) < limit; k, _ = c.Next() {
			run, err := getRun(tx, string(k))
			if err != nil {
				return err
			}
			runs = append(runs, run)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: runs by prefix: %w", err)
	}
	return runs, nil
}

// UpdateRun implements hitl.RunStore.
func (db *DB) UpdateRun(ctx context.Context, id string, fn func(run *hitl.Run) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	return db.updateRun(ctx, id, hitl.ControlKey{}, func(run *hitl.Run, _ *hitl.ControlRecord) (hitl.RunUpdate, error) { return fn(run) })
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
