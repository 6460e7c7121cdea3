package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/observe"
	"github.com/jackc/pgx/v5"
)

// The rollups (hitl.Rollup) and the runs' last question times are edited
// by change.flush, in the transaction of the write they count: each
// rollup row is created or locked, and read, by one upsert (in key order,
// before the event counter's lock), edited here and written back.

var _ hitl.RollupStore = (*DB)(nil)

type rollupKey struct{ span, start int64 }

// rollupEdits gathers what a transaction changes in the rollups.
type rollupEdits struct {
	edits []hitl.RollupEdit
	asked map[string]time.Time // run id → the latest question created in it
}

func (r *rollupEdits) question(old, cur *hitl.Question) {
	r.edits = append(r.edits, observe.QuestionRollupEdits(old, cur)...)
	if old == nil && cur != nil {
		if r.asked == nil {
			r.asked = map[string]time.Time{}
		}
		if at, ok := r.asked[cur.RunID]; !ok || cur.CreatedAt.After(at) {
			r.asked[cur.RunID] = cur.CreatedAt
		}
	}
}

// lastAskedSQL moves runs' last question times to the times given when
// later, and returns the times they held before (NULL: none).
const lastAskedSQL = `WITH u AS (SELECT * FROM unnest($1::text[], $2::bigint[]) AS u(j, t)),
	old AS (SELECT job_id, last_ns FROM rollup_runs WHERE job_id = ANY($1)),
	up AS (INSERT INTO rollup_runs (job_id, last_ns) SELECT j, t FROM u
		ON CONFLICT (job_id) DO UPDATE SET last_ns = greatest(rollup_runs.last_ns, EXCLUDED.last_ns) RETURNING 1)
	SELECT u.j, old.last_ns, (SELECT count(*) FROM up) FROM u LEFT JOIN old ON old.job_id = u.j ORDER BY u.j`

// lockRollupsSQL creates or locks the rollup rows given (in that order)
// and returns what they hold.
const lockRollupsSQL = `INSERT INTO rollups (span_ns, start_ns, data)
	SELECT s, t, '{}'::bytea FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS u(s, t, o) ORDER BY o
	ON CONFLICT (span_ns, start_ns) DO UPDATE SET span_ns = EXCLUDED.span_ns
	RETURNING span_ns, start_ns, data`

// writeRollupsSQL writes the rollups edited and deletes those left empty.
const writeRollupsSQL = `WITH up AS (UPDATE rollups r SET data = u.d FROM unnest($1::bigint[], $2::bigint[], $3::bytea[]) AS u(s, t, d)
		WHERE r.span_ns = u.s AND r.start_ns = u.t RETURNING 1),
	del AS (DELETE FROM rollups WHERE (span_ns, start_ns) IN (SELECT * FROM unnest($4::bigint[], $5::bigint[])) RETURNING 1)
	SELECT (SELECT count(*) FROM up), (SELECT count(*) FROM del)`

// flush applies the edits (and those of events) in tx.
func (r *rollupEdits) flush(ctx context.Context, tx pgx.Tx, events []*hitl.Event) error {
	edits := r.edits
	for _, ev := range events {
		if e, ok := observe.EventRollupEdit(ev); ok {
			edits = append(edits, e)
		}
	}
	if len(r.asked) > 0 {
		runs := make([]string, 0, len(r.asked))
		for run := range r.asked {
			runs = append(runs, run)
		}
		slices.Sort(runs)
		ats := make([]int64, len(runs))
		for i, run := range runs {
			ats[i] = ns(r.asked[run])
		}
		rows, err := tx.Query(ctx, lastAskedSQL, runs, ats)
		if err != nil {
			return fmt.Errorf("last question times: %w", err)
		}
		var run string
		var prev *int64
		var n int64
		_, err = pgx.ForEachRow(rows, []any{&run, &prev, &n}, func() error {
			at := r.asked[run]
			var was time.Time
			if prev != nil {
				if was = time.Unix(0, *prev).UTC(); !at.After(was) {
					return nil
				}
			}
			edits = append(edits, observe.RunRollupEdits(was, at)...)
			return nil
		})
		if err != nil {
			return fmt.Errorf("last question times: %w", err)
		}
	}
	if len(edits) == 0 {
		return nil
	}
	return applyRollupEdits(ctx, tx, edits)
}

// applyRollupEdits locks, edits and writes the rollups edits touch.
func applyRollupEdits(ctx context.Context, tx pgx.Tx, edits []hitl.RollupEdit) error {
	touched := map[rollupKey]*hitl.Rollup{}
	var keys []rollupKey
	for _, e := range edits {
		for _, span := range hitl.RollupSpans {
			k := rollupKey{int64(span), ns(hitl.RollupStart(e.At, span))}
			if _, ok := touched[k]; !ok {
				touched[k] = nil
				keys = append(keys, k)
			}
		}
	}
	slices.SortFunc(keys, func(a, b rollupKey) int { return cmp.Or(cmp.Compare(a.span, b.span), cmp.Compare(a.start, b.start)) })
	spans, starts := make([]int64, len(keys)), make([]int64, len(keys))
	for i, k := range keys {
		spans[i], starts[i] = k.span, k.start
	}
	rows, err := tx.Query(ctx, lockRollupsSQL, spans, starts)
	if err != nil {
		return fmt.Errorf("lock rollups: %w", err)
	}
	var k rollupKey
	var data []byte
	_, err = pgx.ForEachRow(rows, []any{&k.span, &k.start, &data}, func() error {
		r := &hitl.Rollup{}
		if err := json.Unmarshal(data, r); err != nil {
			return fmt.Errorf("decode rollup %v: %w", k, err)
		}
		r.Span, r.Start = time.Duration(k.span), time.Unix(0, k.start).UTC()
		touched[k] = r
		return nil
	})
	if err != nil {
		return fmt.Errorf("lock rollups: %w", err)
	}
	for _, e := range edits {
		for _, span := range hitl.RollupSpans {
			r := touched[rollupKey{int64(span), ns(hitl.RollupStart(e.At, span))}]
			if r == nil {
				return fmt.Errorf("rollup of %v (%v) was not locked", e.At, span)
			}
			e.Apply(r)
		}
	}
	var upS, upT, delS, delT []int64
	var upD [][]byte
	for _, k := range keys {
		r := touched[k]
		if r.Empty() {
			delS, delT = append(delS, k.span), append(delT, k.start)
			continue
		}
		d, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode rollup: %w", err)
		}
		upS, upT, upD = append(upS, k.span), append(upT, k.start), append(upD, d)
	}
	if _, err := tx.Exec(ctx, writeRollupsSQL, upS, upT, upD, delS, delT); err != nil {
		return fmt.Errorf("write rollups: %w", err)
	}
	return nil
}

// buildRollups is schema 13's step (and a load's last): the rollups and
// the runs' last question times, built from scratch from the questions
// and the reminders and escalations of the log.
func buildRollups(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `DELETE FROM rollups; DELETE FROM rollup_runs`); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT data FROM questions`)
	if err != nil {
		return err
	}
	var r rollupEdits
	var data []byte
	_, err = pgx.ForEachRow(rows, []any{&data}, func() error {
		q, err := decodeQuestion(data)
		if err != nil {
			return err
		}
		r.question(nil, q)
		return nil
	})
	if err != nil {
		return err
	}
	rows, err = tx.Query(ctx, `SELECT data FROM events WHERE position('"question_reminded"'::bytea IN data) > 0
		OR position('"question_escalated"'::bytea IN data) > 0 ORDER BY seq`)
	if err != nil {
		return err
	}
	var evs []*hitl.Event
	_, err = pgx.ForEachRow(rows, []any{&data}, func() error {
		var ev hitl.Event
		if err := json.Unmarshal(data, &ev); err != nil {
			return fmt.Errorf("decode event: %w", err)
		}
		evs = append(evs, &ev)
		return nil
	})
	if err != nil {
		return err
	}
	return r.flush(ctx, tx, evs)
}

// pruneRollups deletes up to limit rollups that end at or before end,
// and up to limit last question times before it; it returns the larger
// count.
func pruneRollups(ctx context.Context, tx pgx.Tx, end int64, limit int) (int, error) {
	a, err := tx.Exec(ctx, `DELETE FROM rollups WHERE (span_ns, start_ns) IN
		(SELECT span_ns, start_ns FROM rollups WHERE start_ns + span_ns <= $1 ORDER BY start_ns LIMIT $2)`, end, limit)
	if err != nil {
		return 0, err
	}
	b, err := tx.Exec(ctx, `DELETE FROM rollup_runs WHERE job_id IN
		(SELECT job_id FROM rollup_runs WHERE last_ns < $1 ORDER BY last_ns LIMIT $2)`, end, limit)
	if err != nil {
		return 0, err
	}
	return int(max(a.RowsAffected(), b.RowsAffected())), nil
}

// Rollups implements hitl.RollupStore: a range of the primary key.
func (db *DB) Rollups(ctx context.Context, span time.Duration, from, to time.Time) ([]*hitl.Rollup, error) {
	rows, err := db.pool.Query(ctx, `SELECT start_ns, data FROM rollups WHERE span_ns = $1 AND start_ns >= $2 AND start_ns < $3 ORDER BY start_ns`,
		int64(span), ns(from), ns(to))
	if err != nil {
		return nil, classify("read rollups", err)
	}
	var out []*hitl.Rollup
	var start int64
	var data []byte
	_, err = pgx.ForEachRow(rows, []any{&start, &data}, func() error {
		r := &hitl.Rollup{}
		if err := json.Unmarshal(data, r); err != nil {
			return fmt.Errorf("decode rollup: %w", err)
		}
		r.Span, r.Start = span, time.Unix(0, start).UTC()
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, classify("read rollups", err)
	}
	return out, nil
}
