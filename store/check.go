package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hitlbot/hitl"

	bolt "go.etcd.io/bbolt"
)

// maxCheckErrors bounds the report of Check.
const maxCheckErrors = 50

// Check verifies the file (bbolt's page consistency check) and the indexes
// against the questions: every question has its by_job entry, every pending
// one its pending entry and, with a deadline, its by_deadline entry, every
// idempotency key maps to its question, and no index entry points to a
// missing question or one whose state does not belong there; the learned
// rules' indexes match the rules (one rule per key); control records are
// under their keys, each with its control_age entry. It reads the
// whole database and holds the writer lock while it runs: use it in tests
// and for maintenance, not on a hot path.
func (db *DB) Check() error {
	// A writable transaction keeps writers out while bbolt reads the
	// freelist; it is rolled back, so nothing is written.
	tx, err := db.bolt.Begin(true)
	if err != nil {
		return fmt.Errorf("store: check: %w", err)
	}
	defer func() { _ = tx.Rollback() }()

	var errs []error
	report := func(err error) {
		if len(errs) < maxCheckErrors {
			errs = append(errs, err)
		}
	}
	for err := range tx.Check() {
		report(fmt.Errorf("bbolt: %w", err))
	}
	checkIndexes(tx, report)
	checkEvents(tx, report)
	checkOutbox(tx, report)
	checkLearned(tx, report)
	checkControl(tx, report)
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("store: check %s: %w", db.path, errors.Join(errs...))
}

// checkIndexes derives every index entry and run record from the
// questions and compares the result with the buckets, both ways.
func checkIndexes(tx *bolt.Tx, report func(error)) {
	want := map[string]map[string]string{} // bucket → key → value
	for _, b := range indexBuckets {
		want[string(b)] = map[string]string{}
	}
	runs := map[string]*hitl.Run{}
	err := tx.Bucket(bucketQuestions).ForEach(func(k, v []byte) error {
		q, err := decodeQuestion(string(k), v)
		if err != nil {
			report(err)
			return nil
		}
		if q.ID != string(k) {
			report(fmt.Errorf("question under key %q has id %q", k, q.ID))
		}
		for _, e := range indexOf(q) {
			m := want[string(e.bucket)]
			if other, dup := m[string(e.key)]; dup && string(e.bucket) == string(bucketIdem) {
				report(fmt.Errorf("%s key %q is claimed by two questions (%s and %s)", e.bucket, e.key, other, q.ID))
			}
			m[string(e.key)] = string(e.value)
		}
		run := runs[q.RunID]
		if run == nil {
			run = &hitl.Run{}
			runs[q.RunID] = run
		}
		run.Track(nil, q, q.CreatedAt)
		return nil
	})
	if err != nil {
		report(err)
	}
	compareIndexes(tx, want, "question", report)
	checkRuns(tx, runs, report)
	checkCounts(tx, report)
}

// checkLearned derives the learned-rule index entries from the records and
// compares them with the buckets, both ways: no two rules share a key, and
// no entry points to a missing rule.
func checkLearned(tx *bolt.Tx, report func(error)) {
	want := map[string]map[string]string{} // bucket → key → value
	for _, b := range learnedBuckets[1:] {
		want[string(b)] = map[string]string{}
	}
	err := tx.Bucket(bucketLearned).ForEach(func(k, v []byte) error {
		r, err := getLearned(tx, k)
		if err != nil {
			report(err)
			return nil
		}
		if r.ID != string(k) {
			report(fmt.Errorf("learned rule under key %q has id %q", k, r.ID))
		}
		for _, e := range learnedIndexOf(r) {
			m := want[string(e.bucket)]
			if other, dup := m[string(e.key)]; dup && e.value != nil {
				report(fmt.Errorf("learned rules %s and %s have the same key (%s %s %q)", other, r.ID, r.Agent, r.OpType, r.Resource))
			}
			m[string(e.key)] = string(e.value)
		}
		return nil
	})
	if err != nil {
		report(err)
	}
	compareIndexes(tx, want, "learned rule", report)
}

// compareIndexes compares each bucket named in want with the entries it
// should hold, both ways, and empties want.
func compareIndexes(tx *bolt.Tx, want map[string]map[string]string, of string, report func(error)) {
	for name, m := range want {
		err := tx.Bucket([]byte(name)).ForEach(func(k, v []byte) error {
			value, ok := m[string(k)]
			switch {
			case !ok:
				report(fmt.Errorf("%s has a stray entry %q: its %s is missing or does not belong there", name, k, of))
			case value != string(v):
				report(fmt.Errorf("%s entry %q maps to %q, want %q", name, k, v, value))
			}
			delete(m, string(k))
			return nil
		})
		if err != nil {
			report(err)
		}
		for k := range m {
			report(fmt.Errorf("%s is missing entry %q", name, k))
		}
	}
}

// checkCounts compares the per-status counts with the status index.
func checkCounts(tx *bolt.Tx, report func(error)) {
	for _, st := range []hitl.Status{hitl.StatusPending, hitl.StatusAnswered, hitl.StatusTimeout, hitl.StatusCancelled} {
		prefix := append([]byte(st), 0)
		n := uint64(0)
		c := tx.Bucket(bucketByStatus).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			n++
		}
		var got uint64
		if v := tx.Bucket(bucketCounts).Get([]byte(st)); len(v) == 8 {
			got = binary.BigEndian.Uint64(v)
		}
		if got != n {
			report(fmt.Errorf("counts says %d %s questions, the index holds %d", got, st, n))
		}
	}
}

// checkRuns compares the stored run records' counts with those derived
// from the questions (want).
func checkRuns(tx *bolt.Tx, want map[string]*hitl.Run, report func(error)) {
	err := tx.Bucket(bucketRuns).ForEach(func(k, v []byte) error {
		got, err := getRun(tx, string(k))
		if err != nil {
			report(err)
			return nil
		}
		w := want[string(k)]
		delete(want, string(k))
		if active := tx.Bucket(bucketRunsActive).Get(k) != nil; active != got.Control.Status.Active() {
			report(fmt.Errorf("run %s is %q but runs_active says active=%v", k, got.Control.Status, active))
		}
		switch {
		case w == nil && got.Questions == 0:
			// a run steered or reported on before it asked anything
		case w == nil:
			report(fmt.Errorf("run %s counts %d questions but has none", k, got.Questions))
		case got.Questions != w.Questions || got.Pending != w.Pending || got.PendingInput != w.PendingInput || got.PendingApproval != w.PendingApproval:
			report(fmt.Errorf("run %s counts %d questions, %d pending (%d input, %d approval); its questions say %d, %d (%d, %d)",
				k, got.Questions, got.Pending, got.PendingInput, got.PendingApproval, w.Questions, w.Pending, w.PendingInput, w.PendingApproval))
		case (got.WaitingOn == nil) != (w.PendingInput+w.PendingApproval == 0):
			report(fmt.Errorf("run %s waits on %v with %d questions it waits on pending", k, got.WaitingOn, w.PendingInput+w.PendingApproval))
		}
		return nil
	})
	if err != nil {
		report(err)
	}
	for id := range want {
		report(fmt.Errorf("run %s has questions but no record", id))
	}
}

// checkEvents checks that event keys are sequence numbers the bucket has
// handed out, and that events_by_run holds exactly the events with a run.
func checkEvents(tx *bolt.Tx, report func(error)) {
	b := tx.Bucket(bucketEvents)
	seq := b.Sequence()
	byRun := map[string]string{}
	err := b.ForEach(func(k, v []byte) error {
		if len(k) != 8 {
			report(fmt.Errorf("events has a malformed key %x", k))
			return nil
		} else if n := binary.BigEndian.Uint64(k); n == 0 || n > seq {
			report(fmt.Errorf("event %d is beyond the sequence %d", n, seq))
		}
		var ev struct {
			RunID string `json:"jobId"`
		}
		if err := json.Unmarshal(v, &ev); err != nil {
			report(fmt.Errorf("event %x: %w", k, err))
		} else if ev.RunID != "" {
			byRun[string(runEventKey(ev.RunID, binary.BigEndian.Uint64(k)))] = ""
		}
		return nil
	})
	if err != nil {
		report(err)
	}
	compareIndexes(tx, map[string]map[string]string{string(bucketEventsByRun): byRun}, "event", report)
}
