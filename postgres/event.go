package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/hitlbot/hitl"
	"github.com/jackc/pgx/v5"
)

// appendEvents gives evs the next sequence numbers and writes them
// (change.flush). It takes the event counter's row lock, which the
// transaction holds until it commits: transactions that append commit one
// after the other, in Seq order, so the log never shows Seq n+1 before
// Seq n. Callers append last, after every other lock they take.
func appendEvents(ctx context.Context, tx pgx.Tx, evs []*hitl.Event) error {
	c := change{counts: map[hitl.Status]int64{}, events: evs}
	return c.flush(ctx, tx)
}

// AppendEvent implements hitl.EventStore.
func (db *DB) AppendEvent(ctx context.Context, ev *hitl.Event) error {
	return db.write(ctx, "append event", func(tx pgx.Tx) error {
		ev.Seq = 0
		return appendEvents(ctx, tx, []*hitl.Event{ev})
	})
}

// seqAfter is after as a bigint; ok is false when no event can follow it.
func seqAfter(after uint64) (int64, bool) {
	if after >= math.MaxInt64 {
		return 0, false
	}
	return int64(after), true
}

// decodeEvents reads rows of (seq, data): the Seq is the row's.
func decodeEvents(rows pgx.Rows) ([]*hitl.Event, error) {
	var out []*hitl.Event
	var seq int64
	var data []byte
	_, err := pgx.ForEachRow(rows, []any{&seq, &data}, func() error {
		ev := &hitl.Event{}
		if err := json.Unmarshal(data, ev); err != nil {
			return fmt.Errorf("decode event %d: %w", seq, err)
		}
		ev.Seq = uint64(seq)
		out = append(out, ev)
		return nil
	})
	if out == nil {
		out = []*hitl.Event{}
	}
	return out, err
}

// Events implements hitl.EventStore: the primary key from after. limit <= 0
// means no limit.
func (db *DB) Events(ctx context.Context, after uint64, limit int) ([]*hitl.Event, error) {
	a, ok := seqAfter(after)
	if !ok {
		return nil, nil
	}
	sql := `SELECT seq, data FROM events WHERE seq > $1 ORDER BY seq`
	args := []any{a}
	if limit > 0 {
		sql += ` LIMIT $2`
		args = append(args, limit)
	}
	rows, err := db.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, classify("read events", err)
	}
	evs, err := decodeEvents(rows)
	if err != nil {
		return nil, classify("read events", err)
	}
	if len(evs) == 0 {
		return nil, nil
	}
	return evs, nil
}

// LastSeq implements hitl.EventStore: the counter.
func (db *DB) LastSeq(ctx context.Context) (uint64, error) {
	var seq int64
	if err := db.pool.QueryRow(ctx, `SELECT seq FROM event_seq`).Scan(&seq); err != nil {
		return 0, classify("last event", err)
	}
	return uint64(seq), nil
}

// RunEvents implements hitl.EventStore: events_by_run from after, and the
// counter, in one snapshot.
func (db *DB) RunEvents(ctx context.Context, runID string, after uint64, limit int) ([]*hitl.Event, uint64, error) {
	a, ok := seqAfter(after)
	if !ok || nulFree("run id", runID) != nil {
		end, err := db.LastSeq(ctx)
		return nil, max(after, end), err
	}
	var (
		out     []*hitl.Event
		through uint64
	)
	err := db.read(ctx, "read events of run "+runID, func(tx pgx.Tx) error {
		var end int64
		if err := tx.QueryRow(ctx, `SELECT seq FROM event_seq`).Scan(&end); err != nil {
			return err
		}
		sql := `SELECT seq, data FROM events WHERE job_id = $1 AND job_id <> '' AND seq > $2 ORDER BY job_id, seq`
		args := []any{runID, a}
		if limit > 0 {
			sql += ` LIMIT $3`
			args = append(args, limit+1)
		}
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		if out, err = decodeEvents(rows); err != nil {
			return err
		}
		through = max(after, uint64(end))
		if limit > 0 && len(out) > limit {
			out = out[:limit]
			through = out[limit-1].Seq
		}
		return nil
	})
	if err != nil {
		return nil, after, err
	}
	return out, through, nil
}
