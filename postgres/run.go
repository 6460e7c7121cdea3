package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/jackc/pgx/v5"
)

// Advisory lock classes (the first key of pg_advisory_xact_lock(int, int)).
const (
	lockClassRun     = 0x68697401 // a run, by hashtext(id)
	lockClassControl = 0x68697402 // a control request key, by hashtext(principal ‖ 0x01 ‖ request id)
	lockClassLearned = 0x68697403 // a learned rule's key
)

// lockRuns takes the advisory locks of runs ids, in id order, until the
// transaction ends: the run's record and the questions it counts change
// under it.
func lockRuns(ctx context.Context, tx pgx.Tx, ids ...string) error {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, id := range ids {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, int32(lockClassRun), id); err != nil {
			return fmt.Errorf("lock run %s: %w", id, err)
		}
	}
	return nil
}

// getRun reads run id, nil when there is none.
func getRun(ctx context.Context, q querier, id string) (*hitl.Run, error) {
	var data []byte
	err := q.QueryRow(ctx, `SELECT data FROM runs WHERE id = $1`, id).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var run hitl.Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, fmt.Errorf("decode run %s: %w", id, err)
	}
	return &run, nil
}

// putRun writes run (its Version one more) with its index columns.
func putRun(ctx context.Context, tx pgx.Tx, run *hitl.Run) error {
	run.Version++
	data, err := json.Marshal(run)
	if err != nil {
		return fmt.Errorf("encode run %s: %w", run.ID, err)
	}
	var ended *int64
	if run.Control.Status.Ended() {
		t := ns(run.UpdatedAt)
		ended = &t
	}
	_, err = tx.Exec(ctx, `INSERT INTO runs (id, active, ended_ns, data) VALUES ($1, $2, $3, $4)
		ON CONFLICT (id) DO UPDATE SET active = EXCLUDED.active, ended_ns = EXCLUDED.ended_ns, data = EXCLUDED.data`,
		run.ID, run.Open(), ended, data)
	if err != nil {
		return fmt.Errorf("put run %s: %w", run.ID, err)
	}
	return nil
}

// deleteRun deletes run id and where its live message was delivered.
func deleteRun(ctx context.Context, tx pgx.Tx, id string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM runs WHERE id = $1`, id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `DELETE FROM delivered WHERE question_id = $1`, "run:"+id)
	return err
}

// trackRun moves q's run (locked) from question old (nil: new) to q, after
// q's row was written.
func trackRun(ctx context.Context, tx pgx.Tx, old, q *hitl.Question, at time.Time) (*hitl.Run, error) {
	run, err := getRun(ctx, tx, q.RunID)
	if err != nil {
		return nil, err
	}
	if run == nil {
		run = &hitl.Run{}
	}
	run.Track(old, q, at)
	if err := nextWaitingOn(ctx, tx, run); err != nil {
		return nil, err
	}
	return run, putRun(ctx, tx, run)
}

// nextWaitingOn sets run.WaitingOn when it waits on a question but names
// none: the oldest of questions_run_waits.
func nextWaitingOn(ctx context.Context, tx pgx.Tx, run *hitl.Run) error {
	if run.WaitingOn != nil || run.PendingInput+run.PendingApproval == 0 {
		return nil
	}
	var data []byte
	err := tx.QueryRow(ctx, `SELECT data FROM questions WHERE job_id = $1 AND waits ORDER BY created_ns, id LIMIT 1`, run.ID).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	} else if err != nil {
		return err
	}
	q, err := decodeQuestion(data)
	if err != nil {
		return err
	}
	run.WaitingOn = &hitl.PendingQuestion{QuestionID: q.ID, Question: q.Question, Timestamp: q.CreatedAt}
	return nil
}

// Run implements hitl.RunStore.
func (db *DB) Run(ctx context.Context, id string) (*hitl.Run, error) {
	run, err := getRun(ctx, db.pool, id)
	if err != nil {
		return nil, classify("read run "+id, err)
	}
	if run == nil {
		return nil, fault.Errorf(fault.ENOTFOUND, "no run is named %s", id)
	}
	return run, nil
}

// UpdateRun implements hitl.RunStore (updateRun, in control.go).
func (db *DB) UpdateRun(ctx context.Context, id string, fn func(run *hitl.Run) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	return db.updateRun(ctx, id, hitl.ControlKey{}, func(run *hitl.Run, _ *hitl.ControlRecord) (hitl.RunUpdate, error) { return fn(run) })
}

// putControl stores rec under its key (hitl.ControlRecord.Key).
func putControl(ctx context.Context, tx pgx.Tx, rec *hitl.ControlRecord) error {
	k := rec.Key()
	if err := controlKeyNulFree(k); err != nil {
		return err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode control record %q: %w", rec.RequestID, err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO control (principal, request_id, at_ns, data) VALUES ($1, $2, $3, $4)
		ON CONFLICT (principal, request_id) DO UPDATE SET at_ns = EXCLUDED.at_ns, data = EXCLUDED.data`, k.Principal, k.RequestID, ns(rec.At), data)
	if err != nil {
		return fmt.Errorf("put control record %q: %w", rec.RequestID, err)
	}
	return nil
}

// Runs implements hitl.RunStore: the primary key, or runs_active.
func (db *DB) Runs(ctx context.Context, active bool, limit int, cursor string) (hitl.RunPage, error) {
	if limit <= 0 || limit > hitl.MaxPageSize {
		limit = hitl.DefaultPageSize
	}
	sql := `SELECT data FROM runs WHERE id > $1 ORDER BY id LIMIT $2`
	if active {
		sql = `SELECT data FROM runs WHERE active AND id > $1 ORDER BY id LIMIT $2`
	}
	page := hitl.RunPage{Runs: []*hitl.Run{}}
	rows, err := db.pool.Query(ctx, sql, cursor, limit+1)
	if err != nil {
		return page, classify("list runs", err)
	}
	datas, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return page, classify("list runs", err)
	}
	for i, data := range datas {
		if i == limit {
			page.NextCursor = page.Runs[limit-1].ID
			break
		}
		var run hitl.Run
		if err := json.Unmarshal(data, &run); err != nil {
			return page, fmt.Errorf("postgres: decode run: %w", err)
		}
		page.Runs = append(page.Runs, &run)
	}
	return page, nil
}

// RunsByPrefix implements hitl.RunStore: a range of the primary key. Run ids
// are ASCII letters, digits and .:_/@- (hitl.ValidateRunID), all below
// DEL, so the ids starting with prefix are those from prefix up to
// prefix+DEL in the key's "C" collation.
func (db *DB) RunsByPrefix(ctx context.Context, prefix string, limit int) ([]*hitl.Run, error) {
	if err := nulFree("run id prefix", prefix); err != nil {
		return nil, err
	}
	rows, err := db.pool.Query(ctx, `SELECT data FROM runs WHERE id >= $1 AND id < $2 ORDER BY id LIMIT $3`, prefix, prefix+"\x7f", limit)
	if err != nil {
		return nil, classify("list runs by prefix", err)
	}
	datas, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return nil, classify("list runs by prefix", err)
	}
	runs := []*hitl.Run{}
	for _, data := range datas {
		var run hitl.Run
		if err := json.Unmarshal(data, &run); err != nil {
			return nil, fmt.Errorf("postgres: decode run: %w", err)
		}
		runs = append(runs, &run)
	}
	return runs, nil
}
