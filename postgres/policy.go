package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/jackc/pgx/v5"
)

// PolicyState implements hitl.PolicyStore.
func (db *DB) PolicyState(ctx context.Context) (*hitl.PolicyState, error) {
	var data []byte
	err := db.pool.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'policy'`).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, classify("read policy", err)
	}
	st := &hitl.PolicyState{}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, fmt.Errorf("postgres: decode policy: %w", err)
	}
	return st, nil
}

// PutPolicyState implements hitl.PolicyStore.
func (db *DB) PutPolicyState(ctx context.Context, st *hitl.PolicyState, evs ...*hitl.Event) error {
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("postgres: encode policy: %w", err)
	}
	return db.write(ctx, "write policy", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('policy', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, data); err != nil {
			return err
		}
		return appendEventsLast(ctx, tx, evs)
	})
}
