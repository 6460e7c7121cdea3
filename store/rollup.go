package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/observe"
	bolt "go.etcd.io/bbolt"
)

var (
	bucketRollups       = []byte("rollups")         // span ns BE ‖ start (timeKey) → hitl.Rollup JSON
	bucketRollupRuns    = []byte("rollup_runs")     // run id → when its last question was created (timeKey)
	bucketRollupRunsAge = []byte("rollup_runs_age") // that time ‖ run id → "" (for pruning)
)

var _ hitl.RollupStore = (*DB)(nil)

func rollupKey(span time.Duration, start time.Time) []byte {
	k := binary.BigEndian.AppendUint64(make([]byte, 0, 16), uint64(span))
	return binary.BigEndian.AppendUint64(k, timeKey(start))
}

func keyTime(k uint64) time.Time { return time.Unix(0, int64(k^1<<63)).UTC() }

// rollupEditor applies hitl.RollupEdits to the rollups of a transaction,
// each rollup read and written once (flush).
type rollupEditor struct {
	tx      *bolt.Tx
	touched map[string]*hitl.Rollup
}

func newRollupEditor(tx *bolt.Tx) *rollupEditor {
	return &rollupEditor{tx: tx, touched: map[string]*hitl.Rollup{}}
}

func (e *rollupEditor) apply(edits ...hitl.RollupEdit) error {
	for _, ed := range edits {
		for _, span := range hitl.RollupSpans {
			start := hitl.RollupStart(ed.At, span)
			k := string(rollupKey(span, start))
			r := e.touched[k]
			if r == nil {
				r = &hitl.Rollup{Span: span, Start: start}
				if v := e.tx.Bucket(bucketRollups).Get([]byte(k)); v != nil {
					if err := json.Unmarshal(v, r); err != nil {
						return fmt.Errorf("decode rollup %x: %w", k, err)
					}
				}
				e.touched[k] = r
			}
			ed.Apply(r)
		}
	}
	return nil
}

// asked moves run's last question time to at, if later.
func (e *rollupEditor) asked(run string, at time.Time) error {
	runs := e.tx.Bucket(bucketRollupRuns)
	var prev time.Time
	if v := runs.Get([]byte(run)); len(v) == 8 {
		prev = keyTime(binary.BigEndian.Uint64(v))
		if !at.After(prev) {
			return nil
		}
		if err := e.tx.Bucket(bucketRollupRunsAge).Delete(append(bytes.Clone(v), run...)); err != nil {
			return err
		}
	}
	k := u64(timeKey(at))
	if err := runs.Put([]byte(run), k); err != nil {
		return fmt.Errorf("put last question time of run %s: %w", run, err)
	}
	if err := e.tx.Bucket(bucketRollupRunsAge).Put(append(k, run...), []byte{}); err != nil {
		return err
	}
	return e.apply(observe.RunRollupEdits(prev, at)...)
}

// flush writes the rollups edited (deleting those left empty).
func (e *rollupEditor) flush() error {
	b := e.tx.Bucket(bucketRollups)
	for k, r := range e.touched {
		if r.Empty() {
			if err := b.Delete([]byte(k)); err != nil {
				return err
			}
			continue
		}
		data, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode rollup %x: %w", k, err)
		}
		if err := b.Put([]byte(k), data); err != nil {
			return fmt.Errorf("put rollup %x: %w", k, err)
		}
	}
	clear(e.touched)
	return nil
}

// rollupQuestion edits the rollups for a write of a question from old to
// cur (old nil: created; cur nil: deleted), in the write's transaction.
func rollupQuestion(tx *bolt.Tx, old, cur *hitl.Question) error {
	e := newRollupEditor(tx)
	if err := e.apply(observe.QuestionRollupEdits(old, cur)...); err != nil {
		return err
	}
	if old == nil && cur != nil {
		if err := e.asked(cur.RunID, cur.CreatedAt); err != nil {
			return err
		}
	}
	return e.flush()
}

// rollupEvent edits the rollups for an appended event.
func rollupEvent(tx *bolt.Tx, ev *hitl.Event) error {
	ed, ok := observe.EventRollupEdit(ev)
	if !ok {
		return nil
	}
	e := newRollupEditor(tx)
	if err := e.apply(ed); err != nil {
		return err
	}
	return e.flush()
}

// buildRollups is schema 10's step: the rollups and the runs' last
// question times, built from scratch from the questions and the log, in
// one pass over each (the rollups are kept in memory until the end).
func buildRollups(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketRollups, bucketRollupRuns, bucketRollupRunsAge} {
		if tx.Bucket(name) != nil {
			if err := tx.DeleteBucket(name); err != nil {
				return fmt.Errorf("reset %s: %w", name, err)
			}
		}
		if _, err := tx.CreateBucket(name); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
	}
	e := newRollupEditor(tx)
	c := tx.Bucket(bucketQuestions).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		q, err := decodeQuestion(string(k), v)
		if err != nil {
			return err
		}
		if err := e.apply(observe.QuestionRollupEdits(nil, q)...); err != nil {
			return err
		}
		if err := e.asked(q.RunID, q.CreatedAt); err != nil {
			return err
		}
	}
	err := tx.Bucket(bucketEvents).ForEach(func(k, v []byte) error {
		var ev hitl.Event
		if err := json.Unmarshal(v, &ev); err != nil {
			return fmt.Errorf("decode event %x: %w", k, err)
		}
		if ed, ok := observe.EventRollupEdit(&ev); ok {
			return e.apply(ed)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return e.flush()
}

// pruneRollups deletes up to limit rollups that end at or before before,
// and up to limit last question times before it.
func pruneRollups(tx *bolt.Tx, before time.Time, limit int) (int, error) {
	n := 0
	for _, span := range hitl.RollupSpans {
		c := tx.Bucket(bucketRollups).Cursor()
		first, end := rollupKey(span, time.Time{}), rollupKey(span, before.Add(-span)) // end: the last start to go
		for k, _ := c.Seek(first); k != nil && n < limit && bytes.Compare(k, end) <= 0; k, _ = c.Seek(first) {
			if err := c.Delete(); err != nil {
				return n, err
			}
			n++
		}
	}
	runs, c := tx.Bucket(bucketRollupRuns), tx.Bucket(bucketRollupRunsAge).Cursor()
	for k, _ := c.First(); k != nil && n < limit && len(k) >= 8 && binary.BigEndian.Uint64(k) < timeKey(before); k, _ = c.First() {
		if err := runs.Delete(k[8:]); err != nil {
			return n, err
		}
		if err := c.Delete(); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// rollupsDue reports whether pruneRollups(before) would delete anything.
func rollupsDue(tx *bolt.Tx, before time.Time) bool {
	for _, span := range hitl.RollupSpans {
		k, _ := tx.Bucket(bucketRollups).Cursor().Seek(rollupKey(span, time.Time{}))
		if k != nil && binary.BigEndian.Uint64(k) == uint64(span) && bytes.Compare(k, rollupKey(span, before.Add(-span))) <= 0 {
			return true
		}
	}
	k, _ := tx.Bucket(bucketRollupRunsAge).Cursor().First()
	return len(k) >= 8 && binary.BigEndian.Uint64(k) < timeKey(before)
}

// Rollups implements hitl.RollupStore: a seek in rollups.
func (db *DB) Rollups(ctx context.Context, span time.Duration, from, to time.Time) ([]*hitl.Rollup, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []*hitl.Rollup
	end := rollupKey(span, to)
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketRollups).Cursor()
		for k, v := c.Seek(rollupKey(span, from)); k != nil && bytes.Compare(k, end) < 0; k, v = c.Next() {
			var r hitl.Rollup
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decode rollup %x: %w", k, err)
			}
			out = append(out, &r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: read rollups: %w", err)
	}
	return out, nil
}
