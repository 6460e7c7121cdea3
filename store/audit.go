package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
)

// The audit trail (hitl.AuditStore). bbolt runs one write transaction at
// a time, so the chain's appends are serialized by the file itself.
var (
	bucketAudit     = []byte("audit")      // seq BE → audit record JSON
	bucketAuditMeta = []byte("audit_meta") // "head" → hitl.AuditHead JSON, "checkpoint" → hitl.AuditCheckpoint JSON

	keyAuditHead       = []byte("head")
	keyAuditCheckpoint = []byte("checkpoint")
)

var _ hitl.AuditStore = (*DB)(nil)

// auditEvent appends the audit record of ev, if it has one (in ev's
// transaction: an event acknowledged is an event audited).
func auditEvent(tx *bolt.Tx, ev *hitl.Event) error {
	if r := hitl.AuditOf(ev); r != nil {
		return appendAudit(tx, r)
	}
	return nil
}

func appendAudit(tx *bolt.Tx, r *hitl.AuditRecord) error {
	meta := tx.Bucket(bucketAuditMeta)
	var head hitl.AuditHead
	if v := meta.Get(keyAuditHead); v != nil {
		if err := json.Unmarshal(v, &head); err != nil {
			return fmt.Errorf("decode audit head: %w", err)
		}
	}
	r.Chain(head)
	b := tx.Bucket(bucketAudit)
	b.FillPercent = appendFill
	rec, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode audit record %d: %w", r.Seq, err)
	}
	if err := b.Put(u64(r.Seq), rec); err != nil {
		return fmt.Errorf("put audit record %d: %w", r.Seq, err)
	}
	data, err := json.Marshal(hitl.AuditHead{Seq: r.Seq, Hash: r.Hash})
	if err != nil {
		return err
	}
	return meta.Put(keyAuditHead, data)
}

// appendEvents appends evs (nil ones skipped) in tx: the events a write
// records, with their audit records, committed with the write.
func appendEvents(tx *bolt.Tx, evs []*hitl.Event) error {
	for _, ev := range evs {
		if ev == nil {
			continue
		}
		ev.Seq = 0
		if err := appendEvent(tx, ev); err != nil {
			return err
		}
	}
	return nil
}

// appendAudits appends recs (nil ones skipped) in tx: the records a
// write that is no event (a sign-in, a sign-out) carries.
func appendAudits(tx *bolt.Tx, recs []*hitl.AuditRecord) error {
	for _, r := range recs {
		if r == nil {
			continue
		}
		if err := appendAudit(tx, r); err != nil {
			return err
		}
	}
	return nil
}

// AppendAudit implements hitl.AuditStore.
func (db *DB) AppendAudit(ctx context.Context, r *hitl.AuditRecord) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := db.write(func(tx *bolt.Tx) error { return appendAudit(tx, r) }); err != nil {
		return fmt.Errorf("store: append audit record: %w", err)
	}
	return nil
}

// AuditRecords implements hitl.AuditStore: the records as stored, hash
// and all; the reader verifies them.
func (db *DB) AuditRecords(ctx context.Context, f hitl.AuditFilter) ([]*hitl.AuditRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []*hitl.AuditRecord{}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketAudit).Cursor()
		for k, v := c.Seek(u64(f.After + 1)); k != nil && len(out) < f.PageSize(); k, v = c.Next() {
			var r hitl.AuditRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decode audit record %d: %w", binary.BigEndian.Uint64(k), err)
			}
			if !f.Since.IsZero() && r.At.Before(f.Since) {
				continue
			}
			out = append(out, &r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: read audit records: %w", err)
	}
	return out, nil
}

// AuditHead implements hitl.AuditStore.
func (db *DB) AuditHead(ctx context.Context) (hitl.AuditHead, *hitl.AuditCheckpoint, error) {
	var (
		head hitl.AuditHead
		cp   *hitl.AuditCheckpoint
	)
	if err := ctx.Err(); err != nil {
		return head, nil, err
	}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		head, cp, err = auditMeta(tx)
		return err
	})
	if err != nil {
		return head, nil, fmt.Errorf("store: read audit head: %w", err)
	}
	return head, cp, nil
}

func auditMeta(tx *bolt.Tx) (hitl.AuditHead, *hitl.AuditCheckpoint, error) {
	var head hitl.AuditHead
	meta := tx.Bucket(bucketAuditMeta)
	if v := meta.Get(keyAuditHead); v != nil {
		if err := json.Unmarshal(v, &head); err != nil {
			return head, nil, fmt.Errorf("decode audit head: %w", err)
		}
	}
	v := meta.Get(keyAuditCheckpoint)
	if v == nil {
		return head, nil, nil
	}
	cp := &hitl.AuditCheckpoint{}
	if err := json.Unmarshal(v, cp); err != nil {
		return head, nil, fmt.Errorf("decode audit checkpoint: %w", err)
	}
	return head, cp, nil
}

// PruneAudit implements hitl.AuditStore.
func (db *DB) PruneAudit(ctx context.Context, cp hitl.AuditCheckpoint) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n := 0
	err := db.write(func(tx *bolt.Tx) error {
		n = 0
		head, old, err := auditMeta(tx)
		if err != nil {
			return err
		}
		if cp.Seq >= head.Seq || (old != nil && cp.Seq < old.Seq) {
			return fault.Errorf(fault.EINVALID, "an audit checkpoint at %d must lie between the last one and the head (%d)", cp.Seq, head.Seq)
		}
		c := tx.Bucket(bucketAudit).Cursor()
		for k, _ := c.First(); k != nil && binary.BigEndian.Uint64(k) <= cp.Seq; k, _ = c.First() {
			if err := c.Delete(); err != nil {
				return err
			}
			n++
		}
		data, err := json.Marshal(cp)
		if err != nil {
			return err
		}
		return tx.Bucket(bucketAuditMeta).Put(keyAuditCheckpoint, data)
	})
	if err != nil {
		if fault.Code(err) != "" && fault.Code(err) != fault.EINTERNAL {
			return 0, err
		}
		return 0, fmt.Errorf("store: prune audit records: %w", err)
	}
	return n, nil
}
