package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/jackc/pgx/v5"
)

// The audit trail (hitl.AuditStore). Every append locks audit_head's one
// row (FOR UPDATE) until its transaction commits: appends from every
// replica are serialized, so the chain stays one chain. Writers that
// append events take event_seq's lock first and audit_head's after it;
// AppendAudit takes only audit_head's: no cycle.

var _ hitl.AuditStore = (*DB)(nil)

// auditEvents appends the audit records of evs (those that have one), in
// their transaction.
func auditEvents(ctx context.Context, tx pgx.Tx, evs []*hitl.Event) error {
	var recs []*hitl.AuditRecord
	for _, ev := range evs {
		if r := hitl.AuditOf(ev); r != nil {
			recs = append(recs, r)
		}
	}
	return appendAudit(ctx, tx, recs)
}

func appendAudit(ctx context.Context, tx pgx.Tx, recs []*hitl.AuditRecord) error {
	if len(recs) == 0 {
		return nil
	}
	var head hitl.AuditHead
	var seq int64
	if err := tx.QueryRow(ctx, `SELECT seq, hash FROM audit_head FOR UPDATE`).Scan(&seq, &head.Hash); err != nil {
		return fmt.Errorf("lock audit head: %w", err)
	}
	head.Seq = uint64(seq)
	seqs := make([]int64, len(recs))
	ats := make([]int64, len(recs))
	datas := make([][]byte, len(recs))
	for i, r := range recs {
		r.Chain(head)
		head = hitl.AuditHead{Seq: r.Seq, Hash: r.Hash}
		data, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode audit record: %w", err)
		}
		seqs[i], ats[i], datas[i] = int64(r.Seq), ns(r.At), data
	}
	_, err := tx.Exec(ctx, `WITH ins AS (INSERT INTO audit (seq, at_ns, data) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bytea[]))
		UPDATE audit_head SET seq = $4, hash = $5`, seqs, ats, datas, int64(head.Seq), head.Hash)
	if err != nil {
		return fmt.Errorf("append audit records: %w", err)
	}
	return nil
}

// appendEventsLast appends evs (nil ones skipped) as a write's last step
// (appendEvents takes event_seq's lock, then audit_head's): the events a
// write records, with their audit records, committed with the write.
func appendEventsLast(ctx context.Context, tx pgx.Tx, evs []*hitl.Event) error {
	evs = slices.DeleteFunc(slices.Clone(evs), func(ev *hitl.Event) bool { return ev == nil })
	if len(evs) == 0 {
		return nil
	}
	for _, ev := range evs {
		ev.Seq = 0
	}
	return appendEvents(ctx, tx, evs)
}

// appendAudits appends recs (nil ones skipped) in tx: the records a
// write that is no event (a sign-in, a sign-out) carries.
func appendAudits(ctx context.Context, tx pgx.Tx, recs []*hitl.AuditRecord) error {
	recs = slices.DeleteFunc(slices.Clone(recs), func(r *hitl.AuditRecord) bool { return r == nil })
	for _, r := range recs {
		if err := nulFree("audit record", r.Actor+r.Reason+r.Target); err != nil {
			return err
		}
	}
	return appendAudit(ctx, tx, recs)
}

// AppendAudit implements hitl.AuditStore.
func (db *DB) AppendAudit(ctx context.Context, r *hitl.AuditRecord) error {
	if err := nulFree("audit record", r.Actor+r.Reason+r.Target); err != nil {
		return err
	}
	return db.write(ctx, "append audit record", func(tx pgx.Tx) error {
		return appendAudit(ctx, tx, []*hitl.AuditRecord{r})
	})
}

// AuditRecords implements hitl.AuditStore: the primary key from f.After.
func (db *DB) AuditRecords(ctx context.Context, f hitl.AuditFilter) ([]*hitl.AuditRecord, error) {
	after, ok := seqAfter(f.After)
	if !ok {
		return []*hitl.AuditRecord{}, nil
	}
	since := int64(-1 << 63)
	if !f.Since.IsZero() {
		since = ns(f.Since)
	}
	rows, err := db.pool.Query(ctx, `SELECT seq, data FROM audit WHERE seq > $1 AND at_ns >= $2 ORDER BY seq LIMIT $3`, after, since, f.PageSize())
	if err != nil {
		return nil, classify("read audit records", err)
	}
	out := []*hitl.AuditRecord{}
	var seq int64
	var data []byte
	_, err = pgx.ForEachRow(rows, []any{&seq, &data}, func() error {
		r := &hitl.AuditRecord{}
		if err := json.Unmarshal(data, r); err != nil {
			return fmt.Errorf("decode audit record %d: %w", seq, err)
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, classify("read audit records", err)
	}
	return out, nil
}

// AuditHead implements hitl.AuditStore.
func (db *DB) AuditHead(ctx context.Context) (hitl.AuditHead, *hitl.AuditCheckpoint, error) {
	var (
		head hitl.AuditHead
		seq  int64
		cp   []byte
	)
	if err := db.pool.QueryRow(ctx, `SELECT seq, hash, checkpoint FROM audit_head`).Scan(&seq, &head.Hash, &cp); err != nil {
		return head, nil, classify("read audit head", err)
	}
	head.Seq = uint64(seq)
	if cp == nil {
		return head, nil, nil
	}
	var c hitl.AuditCheckpoint
	if err := json.Unmarshal(cp, &c); err != nil {
		return head, nil, fmt.Errorf("postgres: decode audit checkpoint: %w", err)
	}
	return head, &c, nil
}

// PruneAudit implements hitl.AuditStore.
func (db *DB) PruneAudit(ctx context.Context, cp hitl.AuditCheckpoint) (int, error) {
	data, err := json.Marshal(cp)
	if err != nil {
		return 0, err
	}
	var n int64
	err = db.write(ctx, "prune audit records", func(tx pgx.Tx) error {
		var head int64
		var old []byte
		if err := tx.QueryRow(ctx, `SELECT seq, checkpoint FROM audit_head FOR UPDATE`).Scan(&head, &old); err != nil {
			return err
		}
		var was hitl.AuditCheckpoint
		if old != nil {
			if err := json.Unmarshal(old, &was); err != nil {
				return err
			}
		}
		if cp.Seq >= uint64(head) || cp.Seq < was.Seq {
			return fault.Errorf(fault.EINVALID, "an audit checkpoint at %d must lie between the last one and the head (%d)", cp.Seq, head)
		}
		tag, err := tx.Exec(ctx, `DELETE FROM audit WHERE seq <= $1`, int64(cp.Seq))
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		_, err = tx.Exec(ctx, `UPDATE audit_head SET checkpoint = $1`, data)
		return err
	})
	return int(n), err
}

// Audit writes audit record r as it is (its Seq, Prev and Hash: the
// chain is copied, not rebuilt, so it verifies as it did).
func (l *Loader) Audit(r *hitl.AuditRecord) error {
	if r.Seq == 0 || r.Seq > math.MaxInt64 {
		return fault.Errorf(fault.EINVALID, "audit record with Seq %d", r.Seq)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := l.tx.Exec(l.ctx, `INSERT INTO audit (seq, at_ns, data) VALUES ($1, $2, $3)`, int64(r.Seq), ns(r.At), data); err != nil {
		return fmt.Errorf("audit record %d: %w", r.Seq, err)
	}
	l.N.Audit++
	return nil
}

// AuditHead sets the copied chain's head and the signed checkpoint that
// stands for its pruned records (nil: none).
func (l *Loader) AuditHead(head hitl.AuditHead, cp *hitl.AuditCheckpoint) error {
	if head.Seq > math.MaxInt64 {
		return fault.Errorf(fault.EINVALID, "audit head %d is out of range", head.Seq)
	}
	var data []byte
	if cp != nil {
		var err error
		if data, err = json.Marshal(cp); err != nil {
			return err
		}
	}
	_, err := l.tx.Exec(l.ctx, `UPDATE audit_head SET seq = $1, hash = $2, checkpoint = $3`, int64(head.Seq), head.Hash, data)
	return err
}
