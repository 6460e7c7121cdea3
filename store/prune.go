package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// Prune implements hitl.RetentionStore: retention. It deletes, in one transaction,
// up to limit questions settled before before, with their index entries,
// their runs' counts (a run left with no question goes too) and their
// Slack records, and up to limit events older than before; it returns the
// larger of the two counts.
// Freed pages go back to bbolt's freelist and are reused by later writes,
// so a steady load keeps the file the same size.
func (db *DB) Prune(ctx context.Context, before time.Time, limit int) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if limit <= 0 {
		limit = 256
	}
	// An idle service writes nothing: look before taking the writer.
	due := false
	if err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		due, err = pruneDue(tx, before, limit)
		return err
	}); err != nil {
		return 0, fmt.Errorf("store: prune: %w", err)
	}
	if !due {
		return 0, nil
	}
	var n int
	err := db.write(func(tx *bolt.Tx) error {
		n = 0
		end := timeKey(before)
		c := tx.Bucket(bucketBySettled).Cursor()
		var ids []string
		for k, _ := c.First(); k != nil && len(ids) < limit; k, _ = c.Next() {
			if len(k) < 8 || binary.BigEndian.Uint64(k) >= end {
				break
			}
			ids = append(ids, idAfter(k, 8))
		}
		for _, id := range ids {
			if err := deleteQuestion(tx, id); err != nil {
				return err
			}
			n++
		}
		m, err := pruneEvents(tx, before, limit)
		if err != nil {
			return err
		}
		k, err := pruneControl(tx, before, limit)
		if err != nil {
			return err
		}
		r, err := pruneRuns(tx, before, limit)
		if err != nil {
			return err
		}
		u, err := pruneRollups(tx, before, limit)
		n = max(n, m, k, r, u)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: prune: %w", err)
	}
	return n, nil
}

// pruneDue reports whether Prune(before, limit) would delete anything: it
// reads what the write would read first, and nothing more (a question
// settled before before, the first event, control record or ended run
// that is old enough and holds no question). A sweep with nothing old
// enough is this read, not a commit.
func pruneDue(tx *bolt.Tx, before time.Time, limit int) (bool, error) {
	end := timeKey(before)
	old := func(k []byte) bool { return len(k) >= 8 && binary.BigEndian.Uint64(k) < end }
	if k, _ := tx.Bucket(bucketBySettled).Cursor().First(); old(k) {
		return true, nil
	}
	if k, _ := tx.Bucket(bucketControlAge).Cursor().First(); old(k) {
		return true, nil
	}
	if rollupsDue(tx, before) {
		return true, nil
	}
	if k, v := tx.Bucket(bucketEvents).Cursor().First(); k != nil {
		var ev struct {
			At time.Time `json:"at"`
		}
		// An event that does not decode is due: the write reports it.
		if json.Unmarshal(v, &ev) != nil || ev.At.Before(before) {
			return true, nil
		}
	}
	c := tx.Bucket(bucketRunsEnded).Cursor()
	i := 0
	for k, _ := c.First(); k != nil && i < limit; k, _ = c.Next() {
		if !old(k) {
			break
		}
		i++
		run, err := getRun(tx, string(k[8:]))
		if err != nil {
			return false, err
		}
		if run != nil && !run.Held() {
			return true, nil
		}
	}
	return false, nil
}

// deleteQuestion removes settled question id and everything that points
// to it.
func deleteQuestion(tx *bolt.Tx, id string) error {
	q, err := getQuestion(tx, id)
	if err != nil {
		return err
	}
	if q.Pending() {
		return fmt.Errorf("question %s is pending: only settled questions are pruned", id)
	}
	if err := moveIndexes(tx, id, indexOf(q), nil); err != nil {
		return err
	}
	if err := count(tx, q, nil); err != nil {
		return err
	}
	if err := rollupQuestion(tx, q, nil); err != nil {
		return err
	}
	if err := tx.Bucket(bucketQuestions).Delete([]byte(id)); err != nil {
		return err
	}
	run, err := getRun(tx, q.RunID)
	if err != nil {
		return err
	}
	if run != nil {
		run.Forget(q)
		if !run.Held() {
			if err := deleteRun(tx, run.ID); err != nil {
				return err
			}
		} else if err := putRun(tx, run); err != nil {
			return err
		}
	}
	return deleteSlackRecords(tx, id)
}

// deleteSlackRecords removes where question id was posted.
func deleteSlackRecords(tx *bolt.Tx, id string) error {
	prefix := append([]byte(id), 0)
	msgs := tx.Bucket(bucketSlackMessages)
	c := msgs.Cursor()
	var keys [][]byte
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var m hitl.Delivered
		if json.Unmarshal(v, &m) == nil {
			if err := tx.Bucket(bucketSlackByTS).Delete(joinKey(m.Channel, m.TS)); err != nil {
				return err
			}
		}
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := msgs.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// pruneEvents deletes up to limit events older than before from the start
// of the log (events are appended in time order) and returns how many.
func pruneEvents(tx *bolt.Tx, before time.Time, limit int) (int, error) {
	c := tx.Bucket(bucketEvents).Cursor()
	n := 0
	for k, v := c.First(); k != nil && n < limit; k, v = c.First() {
		var ev struct {
			At time.Time `json:"at"`
		}
		if err := json.Unmarshal(v, &ev); err != nil {
			return n, fmt.Errorf("decode event %x: %w", k, err)
		}
		if !ev.At.Before(before) {
			break
		}
		if err := deleteEvent(tx, c, k, v); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// pruneControl deletes up to limit control records received before
// before (the dedup cache, docs/protocol.md#steering, needs five minutes of them; the RESULTs
// stay on the event log) and returns how many.
func pruneControl(tx *bolt.Tx, before time.Time, limit int) (int, error) {
	end := timeKey(before)
	c := tx.Bucket(bucketControlAge).Cursor()
	n := 0
	for k, _ := c.First(); k != nil && n < limit; k, _ = c.First() {
		if len(k) < 8 || binary.BigEndian.Uint64(k) >= end {
			break
		}
		if err := tx.Bucket(bucketControl).Delete(k[8:]); err != nil {
			return n, err
		}
		if err := c.Delete(); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// pruneRuns deletes up to limit runs that ended before before and hold no
// question any more (a loop that only reported, like a Claude Code
// session; runs with questions go with their last question) and returns
// how many.
func pruneRuns(tx *bolt.Tx, before time.Time, limit int) (int, error) {
	end := timeKey(before)
	c := tx.Bucket(bucketRunsEnded).Cursor()
	var ids []string
	for k, _ := c.First(); k != nil && len(ids) < limit; k, _ = c.Next() {
		if len(k) < 8 || binary.BigEndian.Uint64(k) >= end {
			break
		}
		ids = append(ids, string(k[8:]))
	}
	n := 0
	for _, id := range ids {
		run, err := getRun(tx, id)
		if err != nil {
			return n, err
		}
		if run == nil || run.Held() {
			continue
		}
		if err := deleteRun(tx, id); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
