package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/jackc/pgx/v5"
)

func decodeSignIn(data []byte) (*hitl.SignIn, error) {
	return decodeRecord[hitl.SignIn](data, "web sign-in")
}

// PutSignIn implements hitl.SignInStore: an upsert of the record.
func (db *DB) PutSignIn(ctx context.Context, s *hitl.SignIn, audit ...*hitl.AuditRecord) error {
	if s == nil || s.ID == "" {
		return fault.Errorf(fault.EINVALID, "a web sign-in needs an id")
	}
	if err := nulFree("web sign-in id", s.ID); err != nil {
		return err
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("postgres: encode web sign-in: %w", err)
	}
	return db.write(ctx, "put web sign-in", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO web_sessions (id, expires_ns, data) VALUES ($1, $2, $3)
ON CONFLICT (id) DO UPDATE SET expires_ns = EXCLUDED.expires_ns, data = EXCLUDED.data`, s.ID, ns(s.ExpiresAt), data)
		if err != nil {
			return err
		}
		return appendAudits(ctx, tx, audit)
	})
}

// SignIn implements hitl.SignInStore: the primary key.
func (db *DB) SignIn(ctx context.Context, id string) (*hitl.SignIn, error) {
	if nulFree("web sign-in id", id) != nil {
		return nil, fault.Errorf(fault.ENOTFOUND, "no web sign-in")
	}
	var data []byte
	err := db.pool.QueryRow(ctx, `SELECT data FROM web_sessions WHERE id = $1`, id).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fault.Errorf(fault.ENOTFOUND, "no web sign-in")
	} else if err != nil {
		return nil, classify("read web sign-in", err)
	}
	return decodeSignIn(data)
}

// DeleteSignIn implements hitl.SignInStore: of two concurrent deletes, the
// row lock gives the record to one.
func (db *DB) DeleteSignIn(ctx context.Context, id string, auditOf ...func(*hitl.SignIn) *hitl.AuditRecord) (*hitl.SignIn, error) {
	if nulFree("web sign-in id", id) != nil {
		return nil, fault.Errorf(fault.ENOTFOUND, "no web sign-in")
	}
	return deleteRecord(ctx, db, "web_sessions", id, "web sign-in", fault.Errorf(fault.ENOTFOUND, "no web sign-in"),
		func(tx pgx.Tx, gone *hitl.SignIn) error {
			var recs []*hitl.AuditRecord
			for _, f := range auditOf {
				recs = append(recs, f(gone))
			}
			return appendAudits(ctx, tx, recs)
		})
}

// PruneSignIns implements hitl.SignInStore: the oldest expired first; with nothing
// expired it only reads.
func (db *DB) PruneSignIns(ctx context.Context, now time.Time, limit int) (int, error) {
	return db.pruneExpired(ctx, "web_sessions", now, limit)
}
