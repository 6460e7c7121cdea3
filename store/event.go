package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// Events implements hitl.Store. limit <= 0 means no limit.
func (db *DB) Events(ctx context.Context, after uint64, limit int) ([]*hitl.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("store: read events: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var out []*hitl.Event
	if after == ^uint64(0) {
		return out, nil
	}
	c := tx.Bucket(bucketEvents).Cursor()
	for k, v := c.Seek(u64(after + 1)); k != nil; k, v = c.Next() {
		var ev hitl.Event
		if err := json.Unmarshal(v, &ev); err != nil {
			return nil, fmt.Errorf("store: decode event %d: %w", binary.BigEndian.Uint64(k), err)
		}
		out = append(out, &ev)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// LastSeq implements hitl.Store: the events bucket's sequence.
func (db *DB) LastSeq(ctx context.Context) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var seq uint64
	err := db.bolt.View(func(tx *bolt.Tx) error {
		seq = tx.Bucket(bucketEvents).Sequence()
		return nil
	})
	return seq, err
}

// AppendEvent implements hitl.Store.
func (db *DB) AppendEvent(ctx context.Context, ev *hitl.Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := db.write(func(tx *bolt.Tx) error {
		ev.Seq = 0
		return appendEvent(tx, ev)
	})
	if err != nil {
		return fmt.Errorf("store: append event: %w", err)
	}
	return nil
}

// appendEvent gives ev the next sequence number and writes it.
func appendEvent(tx *bolt.Tx, ev *hitl.Event) error {
	b := tx.Bucket(bucketEvents)
	seq, err := b.NextSequence()
	if err != nil {
		return fmt.Errorf("next event sequence: %w", err)
	}
	ev.Seq = seq
	data, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode event %d: %w", seq, err)
	}
	if err := b.Put(u64(seq), data); err != nil {
		return fmt.Errorf("put event %d: %w", seq, err)
	}
	return nil
}
