package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/jackc/pgx/v5"
)

func decodeWebSession(data []byte) (*hitl.WebSession, error) {
	s := &hitl.WebSession{}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("decode web session: %w", err)
	}
	return s, nil
}

// PutWebSession implements hitl.Store: an upsert of the record.
func (db *DB) PutWebSession(ctx context.Context, s *hitl.WebSession) error {
	if s == nil || s.ID == "" {
		return hitl.Errorf(hitl.EINVALID, "a web session needs an id")
	}
	if err := nulFree("web session id", s.ID); err != nil {
		return err
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("postgres: encode web session: %w", err)
	}
	return db.write(ctx, "put web session", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO web_sessions (id, expires_ns, data) VALUES ($1, $2, $3)
ON CONFLICT (id) DO UPDATE SET expires_ns = EXCLUDED.expires_ns, data = EXCLUDED.data`, s.ID, ns(s.ExpiresAt), data)
		return err
	})
}

// WebSession implements hitl.Store: the primary key.
func (db *DB) WebSession(ctx context.Context, id string) (*hitl.WebSession, error) {
	if nulFree("web session id", id) != nil {
		return nil, hitl.Errorf(hitl.ENOTFOUND, "no web session")
	}
	var data []byte
	err := db.pool.QueryRow(ctx, `SELECT data FROM web_sessions WHERE id = $1`, id).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, hitl.Errorf(hitl.ENOTFOUND, "no web session")
	} else if err != nil {
		return nil, classify("read web session", err)
	}
	return decodeWebSession(data)
}

// DeleteWebSession implements hitl.Store: of two concurrent deletes, the
// row lock gives the record to one.
func (db *DB) DeleteWebSession(ctx context.Context, id string) (*hitl.WebSession, error) {
	if nulFree("web session id", id) != nil {
		return nil, hitl.Errorf(hitl.ENOTFOUND, "no web session")
	}
	var gone *hitl.WebSession
	err := db.write(ctx, "delete web session", func(tx pgx.Tx) error {
		gone = nil
		var data []byte
		err := tx.QueryRow(ctx, `DELETE FROM web_sessions WHERE id = $1 RETURNING data`, id).Scan(&data)
		if errors.Is(err, pgx.ErrNoRows) {
			return hitl.Errorf(hitl.ENOTFOUND, "no web session")
		} else if err != nil {
			return err
		}
		gone, err = decodeWebSession(data)
		return err
	})
	if err != nil {
		return nil, err
	}
	return gone, nil
}

// PruneWebSessions implements hitl.Store: web_sessions_by_expiry from its
// start; with nothing expired it only reads.
func (db *DB) PruneWebSessions(ctx context.Context, now time.Time, limit int) (int, error) {
	if limit <= 0 {
		limit = 256
	}
	var due bool
	if err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM web_sessions WHERE expires_ns <= $1)`, ns(now)).Scan(&due); err != nil {
		return 0, classify("read web sessions", err)
	}
	if !due {
		return 0, nil
	}
	var n int
	err := db.write(ctx, "prune web sessions", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM web_sessions WHERE id IN (SELECT id FROM web_sessions WHERE expires_ns <= $1 ORDER BY expires_ns, id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
			ns(now), limit)
		n = int(tag.RowsAffected())
		return err
	})
	return n, err
}
