package store

import (
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
)

// indexEntry is one entry a question has in an index bucket. Most values
// are empty; idem maps to the question id; run_pending says whether the
// run waits on the question.
type indexEntry struct {
	bucket []byte
	key    []byte
	value  []byte
}

// indexOf lists every index entry of q, as its current state implies.
func indexOf(q *hitl.Question) []indexEntry {
	e := []indexEntry{
		{bucketByRun, runKey(q.RunID, q.CreatedAt, q.ID), nil},
		{bucketByCreated, timeIDKey(q.CreatedAt, q.ID), nil},
		{bucketByStatus, prefixedTimeKey(string(q.Status), q.CreatedAt, q.ID), nil},
		{bucketByFilter, prefixedTimeKey(typeList(q.Type), q.CreatedAt, q.ID), nil},
		{bucketByFilter, prefixedTimeKey(typeStatusList(q.Type, q.Status), q.CreatedAt, q.ID), nil},
	}
	if q.Asker != "" {
		e = append(e,
			indexEntry{bucketByAsker, prefixedTimeKey(q.Asker, q.CreatedAt, q.ID), nil},
			indexEntry{bucketByFilter, prefixedTimeKey(askerStatusList(q.Asker, q.Status), q.CreatedAt, q.ID), nil})
	}
	if q.Pending() {
		if q.TimeoutAt != nil {
			e = append(e, indexEntry{bucketByDeadline, timeIDKey(*q.TimeoutAt, q.ID), nil})
		}
		if r := q.Reminders; r != nil && r.Next != nil {
			e = append(e, indexEntry{bucketByReminder, timeIDKey(*r.Next, q.ID), nil})
		}
		e = append(e, indexEntry{bucketByDueList, dueKey(dueList(dueAll, ""), q.TimeoutAt, q.ID), nil},
			indexEntry{bucketByDueList, dueKey(dueList(dueRun, q.RunID), q.TimeoutAt, q.ID), nil},
			indexEntry{bucketByDueList, dueKey(dueList(dueType, string(q.Type)), q.TimeoutAt, q.ID), nil})
		for _, a := range q.Listed() { // assignees and escalated people
			e = append(e, indexEntry{bucketByAssignee, prefixedTimeKey(a, q.CreatedAt, q.ID), nil},
				indexEntry{bucketByDueList, dueKey(dueList(dueAssignee, a), q.TimeoutAt, q.ID), nil})
		}
		if q.Unassigned() {
			e = append(e, indexEntry{bucketUnassigned, timeIDKey(q.CreatedAt, q.ID), nil},
				indexEntry{bucketByDueList, dueKey(dueList(dueUnassigned, ""), q.TimeoutAt, q.ID), nil})
		}
		waits := []byte{0}
		if hitl.WaitsOn(q) {
			waits[0] = 1
		}
		e = append(e, indexEntry{bucketRunPending, runKey(q.RunID, q.CreatedAt, q.ID), waits})
	} else if q.RespondedAt != nil {
		e = append(e, indexEntry{bucketBySettled, timeIDKey(*q.RespondedAt, q.ID), nil})
		if q.Status == hitl.StatusAnswered && q.RespondedBy != "" {
			e = append(e, indexEntry{bucketByResponder, prefixedTimeKey(q.RespondedBy, *q.RespondedAt, q.ID), nil})
		}
	}
	if q.IdempotencyKey != "" && q.ReceivedAt == nil {
		e = append(e, indexEntry{bucketIdem, idemKey(q.RunID, hitl.KeyOf(q.Asker, q.IdempotencyKey)), []byte(q.ID)})
	}
	if q.Response != nil && q.Response.Sealed != nil {
		e = append(e, indexEntry{bucketSealed, []byte(q.ID), nil})
	}
	return e
}

// indexBuckets are the buckets indexOf writes to.
var indexBuckets = [][]byte{
	bucketByRun, bucketByCreated, bucketByStatus, bucketByAsker, bucketByDeadline, bucketByAssignee,
	bucketUnassigned, bucketRunPending, bucketBySettled, bucketByResponder, bucketIdem, bucketSealed, bucketByFilter,
	bucketByReminder, bucketByDueList,
}

// moveIndexes deletes the entries of old that cur no longer has and puts
// those of cur that are new or changed. old is nil for a new question,
// cur nil for a deleted one.
func moveIndexes(tx *bolt.Tx, id string, old, cur []indexEntry) error {
	keep := make(map[string]string, len(cur))
	for _, e := range cur {
		keep[string(e.bucket)+"\x00"+string(e.key)] = string(e.value)
	}
	had := make(map[string]string, len(old))
	for _, e := range old {
		k := string(e.bucket) + "\x00" + string(e.key)
		had[k] = string(e.value)
		if _, ok := keep[k]; ok {
			continue
		}
		if err := tx.Bucket(e.bucket).Delete(e.key); err != nil {
			return fmt.Errorf("delete %s entry of question %s: %w", e.bucket, id, err)
		}
	}
	for _, e := range cur {
		k := string(e.bucket) + "\x00" + string(e.key)
		if v, ok := had[k]; ok && v == string(e.value) {
			continue
		}
		b := tx.Bucket(e.bucket)
		if string(e.bucket) == string(bucketIdem) {
			if v := b.Get(e.key); v != nil && string(v) != id {
				return fault.Errorf(fault.ECONFLICT, "idempotency key of question %s is already used by question %s", id, v)
			}
		}
		value := e.value
		if value == nil {
			value = []byte{}
		}
		if err := b.Put(e.key, value); err != nil {
			return fmt.Errorf("put %s entry of question %s: %w", e.bucket, id, err)
		}
	}
	return nil
}
