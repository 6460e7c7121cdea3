package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/jackc/pgx/v5"
)

// SteerRun implements hitl.Store. The request id's advisory lock, taken
// before the run's, serialises the calls of one request id across
// replicas whatever run they name: the second reads the record the first
// committed. Only SteerRun takes it, always first: no lock cycle.
func (db *DB) SteerRun(ctx context.Context, id, requestID string, fn func(run *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	if err := nulFree("request id", requestID); err != nil {
		return nil, err
	}
	return db.updateRun(ctx, id, requestID, fn)
}

// updateRun is UpdateRun, with control request requestID's record handed
// to fn (and its lock taken) when requestID is set. An update that writes
// nothing commits nothing.
func (db *DB) updateRun(ctx context.Context, id, requestID string, fn func(*hitl.Run, *hitl.ControlRecord) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	if err := nulFree("run id", id); err != nil {
		return nil, err
	}
	var (
		stored *hitl.Run
		c      change
	)
	err := db.write(ctx, "update run "+id, func(tx pgx.Tx) error {
		stored = nil
		c.reset()
		var prior *hitl.ControlRecord
		if requestID != "" {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, int32(lockClassControl), requestID); err != nil {
				return fmt.Errorf("lock control request %q: %w", requestID, err)
			}
		}
		if err := lockRuns(ctx, tx, id); err != nil {
			return err
		}
		run, err := getRun(ctx, tx, id)
		if err != nil {
			return err
		}
		if requestID != "" {
			if prior, err = getControl(ctx, tx, requestID); err != nil {
				return err
			}
		}
		var arg *hitl.Run
		if run != nil {
			cp := *run
			arg = &cp
		}
		u, err := fn(arg, prior)
		if err != nil {
			return domain{err}
		}
		if u.Run == nil && len(u.Events) == 0 && u.Control == nil {
			stored = run
			return errNothing
		}
		if u.Run != nil {
			if u.Run.ID != id {
				return domain{fmt.Errorf("postgres: update run %s: fn returned run %q", id, u.Run.ID)}
			}
			if err := putRun(ctx, tx, u.Run); err != nil {
				return err
			}
			run = u.Run
		}
		for _, ev := range u.Events {
			if run != nil {
				ev.Status, ev.Asker = run.Status(), run.Asker
			}
			c.events = append(c.events, ev)
		}
		if u.Control != nil {
			if err := putControl(ctx, tx, u.Control); err != nil {
				return err
			}
		}
		if err := c.flush(ctx, tx); err != nil {
			return err
		}
		stored = run
		return nil
	})
	var d domain
	switch {
	case errors.Is(err, errNothing):
		return stored, nil
	case errors.As(err, &d):
		return nil, d.err
	case err != nil:
		return nil, err
	}
	return stored, nil
}

// errNothing rolls back a run update that writes nothing.
var errNothing = errors.New("nothing to write")

// getControl reads control request id's record, nil when there is none.
func getControl(ctx context.Context, tx pgx.Tx, id string) (*hitl.ControlRecord, error) {
	var data []byte
	err := tx.QueryRow(ctx, `SELECT data FROM control WHERE request_id = $1`, id).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var rec hitl.ControlRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("decode control record %q: %w", id, err)
	}
	return &rec, nil
}
