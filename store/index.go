package store

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

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

// Keys are built so that bytes sort like the values they encode: integers
// big-endian, times as unix nanoseconds with the sign bit flipped (so times
// before 1970 sort before later ones), string prefixes ended by 0x00, which
// job ids and idempotency keys never contain.

func u64(v uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return b[:]
}

// controlKey is a control record's key: principal ‖ 0x00 ‖ request id
// (principal ids never hold 0x00).
func controlKey(k hitl.ControlKey) []byte {
	b := make([]byte, 0, len(k.Principal)+1+len(k.RequestID))
	b = append(b, k.Principal...)
	b = append(b, 0)
	return append(b, k.RequestID...)
}

// timeKey encodes t as a sortable uint64, clamped to the range UnixNano can
// represent (years 1678 to 2262).
func timeKey(t time.Time) uint64 {
	const minSec, maxSec = math.MinInt64/int64(time.Second) + 1, math.MaxInt64/int64(time.Second) - 1
	switch s := t.Unix(); {
	case s < minSec:
		return 0
	case s > maxSec:
		return math.MaxUint64
	}
	return uint64(t.UnixNano()) ^ 1<<63
}

// timeIDKey is time ‖ id: the keys of by_deadline, by_created,
// unassigned and by_settled.
func timeIDKey(at time.Time, id string) []byte {
	k := make([]byte, 8, 8+len(id))
	binary.BigEndian.PutUint64(k, timeKey(at))
	return append(k, id...)
}

// prefixedTimeKey is prefix ‖ 0x00 ‖ time ‖ id: the keys of by_status,
// by_asker, by_assignee and by_responder.
func prefixedTimeKey(prefix string, at time.Time, id string) []byte {
	k := make([]byte, 0, len(prefix)+1+8+len(id))
	k = append(k, prefix...)
	k = append(k, 0)
	k = binary.BigEndian.AppendUint64(k, timeKey(at))
	return append(k, id...)
}

// runPrefix is the by_job prefix of every question of run: runID ‖ 0x00.
func runPrefix(runID string) []byte {
	k := make([]byte, 0, len(runID)+1+8+24)
	k = append(k, runID...)
	return append(k, 0)
}

// runKey is the by_job key: runID ‖ 0x00 ‖ createdAt ‖ id.
func runKey(runID string, createdAt time.Time, id string) []byte {
	k := runPrefix(runID)
	k = binary.BigEndian.AppendUint64(k, timeKey(createdAt))
	return append(k, id...)
}

// idemKey is the idem key: runID ‖ 0x00 ‖ idempotency key.
func idemKey(runID, key string) []byte {
	return append(runPrefix(runID), key...)
}

// idAfter returns the id at the end of an index key after skip bytes.
func idAfter(k []byte, skip int) string {
	if len(k) < skip {
		return ""
	}
	return string(k[skip:])
}

// runEventPrefix is the events_by_run prefix of every event of run:
// runID ‖ 0x00.
func runEventPrefix(runID string) []byte {
	k := make([]byte, 0, len(runID)+1+8)
	k = append(k, runID...)
	return append(k, 0)
}

// runEventKey is the events_by_run key: runID ‖ 0x00 ‖ seq.
func runEventKey(runID string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(runEventPrefix(runID), seq)
}

// The lists of by_filter, each a kind byte then the fields it selects on,
// ended by 0x00; the key goes on with createdAt ‖ id (prefixedTimeKey).
const (
	filterAskerStatus = 'a' // 'a' ‖ asker ‖ 0x00 ‖ status
	filterType        = 't' // 't' ‖ type
	filterTypeStatus  = 's' // 's' ‖ type ‖ 0x00 ‖ status
)

// askerStatusList is the by_filter list of asker's questions of status st.
func askerStatusList(asker string, st hitl.Status) string {
	return string(rune(filterAskerStatus)) + asker + "\x00" + string(st)
}

// typeList is the by_filter list of the questions of type typ.
func typeList(typ hitl.QuestionType) string {
	return string(rune(filterType)) + string(typ)
}

// typeStatusList is the by_filter list of the questions of type typ and
// status st.
func typeStatusList(typ hitl.QuestionType, st hitl.Status) string {
	return string(rune(filterTypeStatus)) + string(typ) + "\x00" + string(st)
}

// The lists of by_due_list, pending questions in deadline order, each a
// kind byte then the id it selects on, ended by 0x00; the key goes on
// with deadline ‖ id (dueKey).
const (
	dueAll        = 'p' // 'p': every pending question
	dueAssignee   = 'a' // 'a' ‖ assignee
	dueUnassigned = 'u' // 'u': pending with no assignee
	dueRun        = 'j' // 'j' ‖ job id: a run's pending questions
	dueType       = 't' // 't' ‖ type: the pending questions of a type
)

// dueList is the by_due_list prefix of a list: kind ‖ id ‖ 0x00.
func dueList(kind byte, id string) []byte {
	k := make([]byte, 0, 2+len(id)+8+24)
	k = append(k, kind)
	k = append(k, id...)
	return append(k, 0)
}

// dueKey is a by_due_list key: list ‖ deadline ‖ id, where a question
// that never times out sorts after every deadline.
func dueKey(list []byte, timeoutAt *time.Time, id string) []byte {
	at := uint64(math.MaxUint64)
	if timeoutAt != nil {
		at = timeKey(*timeoutAt)
	}
	k := binary.BigEndian.AppendUint64(append([]byte{}, list...), at)
	return append(k, id...)
}
