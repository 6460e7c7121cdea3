package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
)

// Sign-ins are records of their own, with an expiry index written in
// the same transaction. The buckets are created at open, so a file of an
// earlier layout gains them without a migration.
var (
	bucketSignIns         = []byte("web_sessions")           // id → session JSON
	bucketSignInsByExpiry = []byte("web_sessions_by_expiry") // expiresAt ‖ id → ""
)

func getSignIn(tx *bolt.Tx, id []byte) (*hitl.SignIn, error) {
	return getRecord[hitl.SignIn](tx, bucketSignIns, id, "sign-in")
}

func deleteSignIn(tx *bolt.Tx, s *hitl.SignIn) error {
	if err := tx.Bucket(bucketSignInsByExpiry).Delete(timeIDKey(s.ExpiresAt, s.ID)); err != nil {
		return fmt.Errorf("delete web sign-in expiry: %w", err)
	}
	if err := tx.Bucket(bucketSignIns).Delete([]byte(s.ID)); err != nil {
		return fmt.Errorf("delete web sign-in: %w", err)
	}
	return nil
}

// PutSignIn implements hitl.SignInStore.
func (db *DB) PutSignIn(ctx context.Context, s *hitl.SignIn, audit ...*hitl.AuditRecord) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s == nil || s.ID == "" {
		return fault.Errorf(fault.EINVALID, "a web sign-in needs an id")
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("store: encode web sign-in: %w", err)
	}
	err = db.write(func(tx *bolt.Tx) error {
		prev, err := getSignIn(tx, []byte(s.ID))
		if err != nil {
			return err
		}
		if prev != nil {
			if err := deleteSignIn(tx, prev); err != nil {
				return err
			}
		}
		if err := tx.Bucket(bucketSignIns).Put([]byte(s.ID), data); err != nil {
			return err
		}
		if err := tx.Bucket(bucketSignInsByExpiry).Put(timeIDKey(s.ExpiresAt, s.ID), nil); err != nil {
			return err
		}
		return appendAudits(tx, audit)
	})
	if err != nil {
		return fmt.Errorf("store: put web sign-in: %w", err)
	}
	return nil
}

// SignIn implements hitl.SignInStore.
func (db *DB) SignIn(ctx context.Context, id string) (*hitl.SignIn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var s *hitl.SignIn
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		s, err = getSignIn(tx, []byte(id))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if s == nil {
		return nil, fault.Errorf(fault.ENOTFOUND, "no web sign-in")
	}
	return s, nil
}

// DeleteSignIn implements hitl.SignInStore.
func (db *DB) DeleteSignIn(ctx context.Context, id string, auditOf ...func(*hitl.SignIn) *hitl.AuditRecord) (*hitl.SignIn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var gone *hitl.SignIn
	err := db.write(func(tx *bolt.Tx) error {
		var err error
		if gone, err = getSignIn(tx, []byte(id)); err != nil || gone == nil {
			return err
		}
		if err := deleteSignIn(tx, gone); err != nil {
			return err
		}
		for _, f := range auditOf {
			if err := appendAudits(tx, []*hitl.AuditRecord{f(gone)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: delete web sign-in: %w", err)
	}
	if gone == nil {
		return nil, fault.Errorf(fault.ENOTFOUND, "no web sign-in")
	}
	return gone, nil
}

// PruneSignIns implements hitl.SignInStore: it reads the expiry index from
// its start, and writes nothing when nothing expired.
func (db *DB) PruneSignIns(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n, err := db.pruneExpired(bucketSignInsByExpiry, now, limit, func(tx *bolt.Tx, key, id []byte) (bool, error) {
		if err := tx.Bucket(bucketSignInsByExpiry).Delete(key); err != nil {
			return false, err
		}
		return true, tx.Bucket(bucketSignIns).Delete(id)
	})
	if err != nil {
		return 0, fmt.Errorf("store: prune web sign-ins: %w", err)
	}
	return n, nil
}
