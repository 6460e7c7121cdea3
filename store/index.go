package store

import (
	"bytes"
	"fmt"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// indexKeys are the index entries of one question; nil where it has none.
type indexKeys struct {
	job, pending, deadline, idem, sealed []byte
}

func indexOf(q *hitl.Question) indexKeys {
	k := indexKeys{job: jobKey(q.JobID, q.CreatedAt, q.ID)}
	if q.Pending() {
		k.pending = pendingKey(q.CreatedAt, q.ID)
		if q.TimeoutAt != nil {
			k.deadline = deadlineKey(*q.TimeoutAt, q.ID)
		}
	}
	if q.IdempotencyKey != "" && q.ReceivedAt == nil {
		k.idem = idemKey(q.JobID, q.IdempotencyKey)
	}
	if q.Response != nil && q.Response.Sealed != nil {
		k.sealed = []byte(q.ID)
	}
	return k
}

// moveIndexes deletes the entries of old that changed and puts those of cur.
func moveIndexes(tx *bolt.Tx, id string, old, cur indexKeys) error {
	for _, ix := range []struct {
		bucket   []byte
		old, cur []byte
		value    []byte
	}{
		{bucketByJob, old.job, cur.job, nil},
		{bucketPending, old.pending, cur.pending, nil},
		{bucketByDeadline, old.deadline, cur.deadline, nil},
		{bucketIdem, old.idem, cur.idem, []byte(id)},
		{bucketSealed, old.sealed, cur.sealed, nil},
	} {
		if bytes.Equal(ix.old, ix.cur) {
			continue
		}
		b := tx.Bucket(ix.bucket)
		if ix.old != nil {
			if err := b.Delete(ix.old); err != nil {
				return fmt.Errorf("delete %s entry of question %s: %w", ix.bucket, id, err)
			}
		}
		if ix.cur == nil {
			continue
		}
		if ix.value != nil {
			if v := b.Get(ix.cur); v != nil && !bytes.Equal(v, ix.value) {
				return hitl.Errorf(hitl.ECONFLICT, "idempotency key of question %s is already used by question %s", id, v)
			}
		}
		value := ix.value
		if value == nil {
			value = []byte{}
		}
		if err := b.Put(ix.cur, value); err != nil {
			return fmt.Errorf("put %s entry of question %s: %w", ix.bucket, id, err)
		}
	}
	return nil
}
