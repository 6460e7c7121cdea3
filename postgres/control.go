package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/jackc/pgx/v5"
)

// SteerRun implements hitl.RunStore. The request key's advisory lock, taken
// before the run's, serialises the calls of one key across replicas
// whatever run they name: the second reads the record the first
// committed. Only SteerRun takes it, always first: no lock cycle.
func (db *DB) SteerRun(ctx context.Context, id string, key hitl.ControlKey, fn func(run *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	if err := controlKeyNulFree(key); err != nil {
		return nil, err
	}
	return db.updateRun(ctx, id, key, fn)
}

// controlKeyNulFree refuses a control key that text cannot hold.
func controlKeyNulFree(k hitl.ControlKey) error {
	if err := nulFree("principal", k.Principal); err != nil {
		return err
	}
	return nulFree("request id", k.RequestID)
}

// updateRun is UpdateRun, with the record of the control request key
// names handed to fn (and its lock taken) when key has a request id. An
// update that writes nothing commits nothing.
func (db *DB) updateRun(ctx context.Context, id string, key hitl.ControlKey, fn func(*hitl.Run, *hitl.ControlRecord) (hitl.RunUpdate, error)) (*hitl.Run, error) {
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
		if key.RequestID != "" {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2 || chr(1) || $3))`, int32(lockClassControl), key.Principal, key.RequestID); err != nil {
				return fmt.Errorf("lock control request %q: %w", key.RequestID, err)
			}
		}
		if err := lockRuns(ctx, tx, id); err != nil {
			return err
		}
		run, err := getRun(ctx, tx, id)
		if err != nil {
			return err
		}
		if key.RequestID != "" {
			if prior, err = getControl(ctx, tx, key); err != nil {
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

// getControl reads the control record held under key, nil when there is
// none.
func getControl(ctx context.Context, tx pgx.Tx, key hitl.ControlKey) (*hitl.ControlRecord, error) {
	var data []byte
	err := tx.QueryRow(ctx, `SELECT data FROM control WHERE principal = $1 AND request_id = $2`, key.Principal, key.RequestID).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var rec hitl.ControlRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("decode control record %q: %w", key.RequestID, err)
	}
	return &rec, nil
}
