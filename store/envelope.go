package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// Envelopes an edge handled, with an age index written in the same
// transaction. The buckets are created at open, so a file of an earlier
// layout gains them without a migration.
var (
	bucketEnvelopes      = []byte("envelopes")        // id → seen at (uint64 BE)
	bucketEnvelopesByAge = []byte("envelopes_by_age") // seen at ‖ id → ""
)

// SeeEnvelope implements hitl.EnvelopeStore: one write transaction that records
// the ids and deletes the oldest expired records from the age index.
func (db *DB) SeeEnvelope(ctx context.Context, now time.Time, window time.Duration, ids ...string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	cutoff := timeKey(now.Add(-window))
	var seen bool
	err := db.write(func(tx *bolt.Tx) error {
		seen = false
		recs, ages := tx.Bucket(bucketEnvelopes), tx.Bucket(bucketEnvelopesByAge)
		n := 0
		mine := map[string]bool{}
		for _, id := range ids {
			if id == "" || mine[id] {
				continue
			}
			mine[id] = true
			n++
			if v := recs.Get([]byte(id)); len(v) == 8 {
				at := binary.BigEndian.Uint64(v)
				if at > cutoff {
					seen = true
					continue
				}
				if err := ages.Delete(append(bytes.Clone(v), id...)); err != nil {
					return err
				}
			}
			k := timeIDKey(now, id)
			if err := recs.Put([]byte(id), bytes.Clone(k[:8])); err != nil {
				return err
			}
			if err := ages.Put(k, nil); err != nil {
				return err
			}
		}
		return pruneEnvelopes(tx, cutoff, n*hitl.EnvelopePrune)
	})
	if err != nil {
		return false, fmt.Errorf("store: see envelope: %w", err)
	}
	return seen, nil
}

// pruneEnvelopes deletes up to limit records seen at or before cutoff,
// oldest first.
func pruneEnvelopes(tx *bolt.Tx, cutoff uint64, limit int) error {
	recs, ages := tx.Bucket(bucketEnvelopes), tx.Bucket(bucketEnvelopesByAge)
	var keys [][]byte
	c := ages.Cursor()
	for k, _ := c.First(); k != nil && len(keys) < limit; k, _ = c.Next() {
		if len(k) < 8 || binary.BigEndian.Uint64(k) > cutoff {
			break
		}
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := ages.Delete(k); err != nil {
			return err
		}
		if err := recs.Delete(k[8:]); err != nil {
			return err
		}
	}
	return nil
}
