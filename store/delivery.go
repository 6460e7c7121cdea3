package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
)

// The outbox's buckets are slack_meta (the cursor), slack_tasks (seq →
// delivery JSON), slack_messages and slack_by_ts (the Delivered records, by
// question and by message), declared in db.go, and the index of queued
// deliveries by target:
var bucketOutboxByTarget = []byte("slack_task_by_target") // target ‖ 0x00 ‖ seq BE → ""

var keyCursor = []byte("cursor")

var _ hitl.Outbox = (*DB)(nil)

// targetKey is target ‖ 0x00 ‖ seq: the outbox's by-target key.
func targetKey(target string, seq uint64) []byte {
	k := make([]byte, 0, len(target)+9)
	k = append(k, target...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint64(k, seq)
}

// OutboxCursor implements hitl.Outbox.
func (db *DB) OutboxCursor(ctx context.Context) (uint64, error) {
	var cur uint64
	err := db.bolt.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketSlackMeta).Get(keyCursor); len(v) == 8 {
			cur = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	return cur, err
}

// Enqueue implements hitl.Outbox. A target may not contain a NUL byte.
func (db *DB) Enqueue(ctx context.Context, cursor uint64, ds []hitl.Delivery) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, d := range ds {
		if strings.IndexByte(d.Target, 0) >= 0 || d.Target == "" {
			return fault.Errorf(fault.EINVALID, "delivery target %q is empty or contains a NUL byte", d.Target)
		}
	}
	err := db.write(func(tx *bolt.Tx) error {
		b, idx := tx.Bucket(bucketSlackTasks), tx.Bucket(bucketOutboxByTarget)
		for i := range ds {
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			ds[i].Seq = seq
			data, err := json.Marshal(ds[i])
			if err != nil {
				return err
			}
			if err := b.Put(u64(seq), data); err != nil {
				return err
			}
			if err := idx.Put(targetKey(ds[i].Target, seq), []byte{}); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketSlackMeta).Put(keyCursor, u64(cursor))
	})
	if err != nil {
		return fmt.Errorf("store: enqueue deliveries: %w", err)
	}
	return nil
}

// Targets implements hitl.Outbox: one seek per target returned.
func (db *DB) Targets(ctx context.Context, after string, limit int) ([]string, error) {
	if err := db.indexOutbox(); err != nil {
		return nil, err
	}
	var out []string
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketOutboxByTarget).Cursor()
		k, _ := c.First()
		if after != "" {
			k, _ = c.Seek([]byte(after + "\x01"))
		}
		for k != nil && len(out) < limit {
			if len(k) < 9 {
				return fmt.Errorf("malformed outbox index key %x", k)
			}
			target := k[:len(k)-9]
			out = append(out, string(target))
			// target ‖ 0x01 sorts after every key of target, before the next.
			k, _ = c.Seek(append(bytes.Clone(target), 1))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: delivery targets: %w", err)
	}
	return out, nil
}

// NextDelivery implements hitl.Outbox: one seek and one read.
func (db *DB) NextDelivery(ctx context.Context, target string) (hitl.Delivery, error) {
	var d hitl.Delivery
	found := false
	err := db.bolt.View(func(tx *bolt.Tx) error {
		prefix := append([]byte(target), 0)
		k, _ := tx.Bucket(bucketOutboxByTarget).Cursor().Seek(prefix)
		if k == nil || !bytes.HasPrefix(k, prefix) || len(k) != len(prefix)+8 {
			return nil
		}
		seq := binary.BigEndian.Uint64(k[len(prefix):])
		v := tx.Bucket(bucketSlackTasks).Get(u64(seq))
		if v == nil {
			return fmt.Errorf("outbox index names delivery %d, which is missing", seq)
		}
		found = true
		return json.Unmarshal(v, &d)
	})
	if err != nil {
		return d, fmt.Errorf("store: next delivery to %s: %w", target, err)
	}
	if !found {
		return d, fault.Errorf(fault.ENOTFOUND, "no delivery queued for %s", target)
	}
	db.resumes.mark(&d)
	return d, nil
}

// Complete implements hitl.Outbox.
func (db *DB) Complete(ctx context.Context, d hitl.Delivery, rec *hitl.Delivered) error {
	err := db.write(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketSlackTasks).Delete(u64(d.Seq)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketOutboxByTarget).Delete(targetKey(d.Target, d.Seq)); err != nil {
			return err
		}
		if rec == nil {
			return nil
		}
		data, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		ref := joinKey(rec.QuestionID, rec.Target)
		if err := tx.Bucket(bucketSlackMessages).Put(ref, data); err != nil {
			return err
		}
		return tx.Bucket(bucketSlackByTS).Put(joinKey(rec.Channel, rec.TS), ref)
	})
	if err != nil {
		return fmt.Errorf("store: complete delivery %d: %w", d.Seq, err)
	}
	return nil
}

// Delivered implements hitl.Outbox.
func (db *DB) Delivered(ctx context.Context, questionID string) ([]hitl.Delivered, error) {
	var out []hitl.Delivered
	prefix := append([]byte(questionID), 0)
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketSlackMessages).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var m hitl.Delivered
			if err := json.Unmarshal(v, &m); err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: deliveries of %s: %w", questionID, err)
	}
	return out, nil
}

// DeliveredAt implements hitl.Outbox.
func (db *DB) DeliveredAt(ctx context.Context, channel, ts string) (hitl.Delivered, error) {
	var m hitl.Delivered
	found := false
	err := db.bolt.View(func(tx *bolt.Tx) error {
		ref := tx.Bucket(bucketSlackByTS).Get(joinKey(channel, ts))
		if ref == nil {
			return nil
		}
		v := tx.Bucket(bucketSlackMessages).Get(ref)
		if v == nil {
			return nil
		}
		found = true
		return json.Unmarshal(v, &m)
	})
	if err != nil {
		return m, fmt.Errorf("store: delivered message %s/%s: %w", channel, ts, err)
	}
	if !found {
		return m, fault.Errorf(fault.ENOTFOUND, "no question was delivered as message %s in %s", ts, channel)
	}
	return m, nil
}

// indexOutbox builds the by-target index of a file written before it
// existed (queued deliveries but an empty index). It costs two seeks when
// there is nothing to do.
func (db *DB) indexOutbox() error {
	need := false
	if err := db.bolt.View(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(bucketOutboxByTarget).Cursor().First()
		t, _ := tx.Bucket(bucketSlackTasks).Cursor().First()
		need = k == nil && t != nil
		return nil
	}); err != nil || !need {
		return err
	}
	err := db.write(func(tx *bolt.Tx) error {
		idx := tx.Bucket(bucketOutboxByTarget)
		return tx.Bucket(bucketSlackTasks).ForEach(func(k, v []byte) error {
			var d hitl.Delivery
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("decode delivery %x: %w", k, err)
			}
			return idx.Put(targetKey(d.Target, binary.BigEndian.Uint64(k)), []byte{})
		})
	})
	if err != nil {
		return fmt.Errorf("store: index the outbox: %w", err)
	}
	return nil
}

// checkOutbox checks the by-target index against the queued deliveries,
// both ways.
func checkOutbox(tx *bolt.Tx, report func(error)) {
	want := map[string]bool{}
	err := tx.Bucket(bucketSlackTasks).ForEach(func(k, v []byte) error {
		var d hitl.Delivery
		if err := json.Unmarshal(v, &d); err != nil {
			report(fmt.Errorf("delivery %x does not decode: %w", k, err))
			return nil
		}
		want[string(targetKey(d.Target, binary.BigEndian.Uint64(k)))] = true
		return nil
	})
	if err != nil {
		report(err)
	}
	idx := tx.Bucket(bucketOutboxByTarget)
	if k, _ := idx.Cursor().First(); k == nil {
		return // not indexed yet (a file from before the index): built on first use
	}
	err = idx.ForEach(func(k, _ []byte) error {
		if !want[string(k)] {
			report(fmt.Errorf("%s has a stray entry %q", bucketOutboxByTarget, k))
		}
		delete(want, string(k))
		return nil
	})
	if err != nil {
		report(err)
	}
	for k := range want {
		report(fmt.Errorf("%s is missing entry %q", bucketOutboxByTarget, k))
	}
}

func joinKey(a, b string) []byte {
	k := make([]byte, 0, len(a)+1+len(b))
	k = append(k, a...)
	k = append(k, 0)
	return append(k, b...)
}

// QueueLength implements hitl.Outbox: it counts the keys of the queue.
func (db *DB) QueueLength(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n := 0
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketSlackTasks).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: count queued deliveries: %w", err)
	}
	return n, nil
}
