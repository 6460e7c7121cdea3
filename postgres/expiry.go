package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// decodeRecord decodes a JSON record (a learned rule, a sign-in).
func decodeRecord[T any](data []byte, what string) (*T, error) {
	r := new(T)
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("decode %s: %w", what, err)
	}
	return r, nil
}

// pruneExpired deletes up to limit (256 when 0 or less) rows of table
// (learned, web_sessions: an id and an expires_ns) that expired by now,
// oldest first, skipping rows another replica holds. It reads first, so
// that with nothing expired it writes nothing.
func (db *DB) pruneExpired(ctx context.Context, table string, now time.Time, limit int) (int, error) {
	if limit <= 0 {
		limit = 256
	}
	var due bool
	if err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+` WHERE expires_ns <= $1)`, ns(now)).Scan(&due); err != nil {
		return 0, classify("read "+table, err)
	}
	if !due {
		return 0, nil
	}
	var n int
	err := db.write(ctx, "prune "+table, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE id IN (SELECT id FROM `+table+` WHERE expires_ns <= $1 ORDER BY expires_ns, id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
			ns(now), limit)
		n = int(tag.RowsAffected())
		return err
	})
	return n, err
}

// deleteRecord deletes the row id of table (learned, web_sessions) and
// returns its record; of two concurrent deletes, the row lock gives the
// record to one, and the other gets missing. what names the record in
// errors (never a sign-in's id: it is a credential). then (when not nil)
// runs with the deleted record in the same transaction (its audit record).
func deleteRecord[T any](ctx context.Context, db *DB, table, id, what string, missing error, then func(pgx.Tx, *T) error) (*T, error) {
	var gone *T
	err := db.write(ctx, "delete "+what, func(tx pgx.Tx) error {
		gone = nil
		var data []byte
		err := tx.QueryRow(ctx, `DELETE FROM `+table+` WHERE id = $1 RETURNING data`, id).Scan(&data)
		if errors.Is(err, pgx.ErrNoRows) {
			return missing
		} else if err != nil {
			return err
		}
		if gone, err = decodeRecord[T](data, what); err != nil || then == nil {
			return err
		}
		return then(tx, gone)
	})
	if err != nil {
		return nil, err
	}
	return gone, nil
}
