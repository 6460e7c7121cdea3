package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// Events implements hitl.EventStore. limit <= 0 means no limit.
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

// LastSeq implements hitl.EventStore: the events bucket's sequence.
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

// AppendEvent implements hitl.EventStore.
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
	b.FillPercent = appendFill
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
	if ev.RunID != "" {
		if err := tx.Bucket(bucketEventsByRun).Put(runEventKey(ev.RunID, seq), []byte{}); err != nil {
			return fmt.Errorf("put events_by_run entry of event %d: %w", seq, err)
		}
	}
	if err := rollupEvent(tx, ev); err != nil {
		return err
	}
	if err := auditEvent(tx, ev); err != nil {
		return err
	}
	return enqueueWebhooks(tx, ev)
}

// deleteEvent deletes the event at c (a cursor on the events bucket,
// standing on key k with value v) and its events_by_run entry.
func deleteEvent(tx *bolt.Tx, c *bolt.Cursor, k, v []byte) error {
	var ev struct {
		RunID string `json:"jobId"`
	}
	if err := json.Unmarshal(v, &ev); err != nil {
		return fmt.Errorf("decode event %x: %w", k, err)
	}
	if ev.RunID != "" && len(k) == 8 {
		if err := tx.Bucket(bucketEventsByRun).Delete(runEventKey(ev.RunID, binary.BigEndian.Uint64(k))); err != nil {
			return fmt.Errorf("delete events_by_run entry of event %x: %w", k, err)
		}
	}
	return c.Delete()
}

// RunEvents implements hitl.EventStore: it walks run's entries of
// events_by_run from after, so its cost grows with the events it returns,
// not with the log.
func (db *DB) RunEvents(ctx context.Context, runID string, after uint64, limit int) ([]*hitl.Event, uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, after, err
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return nil, after, fmt.Errorf("store: read events of run %s: %w", runID, err)
	}
	defer func() { _ = tx.Rollback() }()
	events := tx.Bucket(bucketEvents)
	through := max(after, events.Sequence())
	var out []*hitl.Event
	if after == ^uint64(0) {
		return out, through, nil
	}
	prefix := runEventPrefix(runID)
	c := tx.Bucket(bucketEventsByRun).Cursor()
	for k, _ := c.Seek(runEventKey(runID, after+1)); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if limit > 0 && len(out) == limit {
			return out, out[len(out)-1].Seq, nil
		}
		seq := k[len(prefix):]
		v := events.Get(seq)
		if v == nil {
			return nil, after, fmt.Errorf("store: events_by_run entry %x has no event", k)
		}
		var ev hitl.Event
		if err := json.Unmarshal(v, &ev); err != nil {
			return nil, after, fmt.Errorf("store: decode event %x: %w", seq, err)
		}
		out = append(out, &ev)
	}
	return out, through, nil
}
