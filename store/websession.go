package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// Web sessions are records of their own, with an expiry index written in
// the same transaction. The buckets are created at open, so a file of an
// earlier layout gains them without a migration.
var (
	bucketWebSessions         = []byte("web_sessions")           // id → session JSON
	bucketWebSessionsByExpiry = []byte("web_sessions_by_expiry") // expiresAt ‖ id → ""
)

func getWebSession(tx *bolt.Tx, id []byte) (*hitl.WebSession, error) {
	return getRecord[hitl.WebSession](tx, bucketWebSessions, id, "web session")
}

func deleteWebSession(tx *bolt.Tx, s *hitl.WebSession) error {
	if err := tx.Bucket(bucketWebSessionsByExpiry).Delete(timeIDKey(s.ExpiresAt, s.ID)); err != nil {
		return fmt.Errorf("delete web session expiry: %w", err)
	}
	if err := tx.Bucket(bucketWebSessions).Delete([]byte(s.ID)); err != nil {
		return fmt.Errorf("delete web session: %w", err)
	}
	return nil
}

// PutWebSession implements hitl.WebSessionStore.
func (db *DB) PutWebSession(ctx context.Context, s *hitl.WebSession) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s == nil || s.ID == "" {
		return hitl.Errorf(hitl.EINVALID, "a web session needs an id")
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("store: encode web session: %w", err)
	}
	err = db.write(func(tx *bolt.Tx) error {
		prev, err := getWebSession(tx, []byte(s.ID))
		if err != nil {
			return err
		}
		if prev != nil {
			if err := deleteWebSession(tx, prev); err != nil {
				return err
			}
		}
		if err := tx.Bucket(bucketWebSessions).Put([]byte(s.ID), data); err != nil {
			return err
		}
		return tx.Bucket(bucketWebSessionsByExpiry).Put(timeIDKey(s.ExpiresAt, s.ID), nil)
	})
	if err != nil {
		return fmt.Errorf("store: put web session: %w", err)
	}
	return nil
}

// WebSession implements hitl.WebSessionStore.
func (db *DB) WebSession(ctx context.Context, id string) (*hitl.WebSession, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var s *hitl.WebSession
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		s, err = getWebSession(tx, []byte(id))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if s == nil {
		return nil, hitl.Errorf(hitl.ENOTFOUND, "no web session")
	}
	return s, nil
}

// DeleteWebSession implements hitl.WebSessionStore.
func (db *DB) DeleteWebSession(ctx context.Context, id string) (*hitl.WebSession, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var gone *hitl.WebSession
	err := db.write(func(tx *bolt.Tx) error {
		var err error
		if gone, err = getWebSession(tx, []byte(id)); err != nil || gone == nil {
			return err
		}
		return deleteWebSession(tx, gone)
	})
	if err != nil {
		return nil, fmt.Errorf("store: delete web session: %w", err)
	}
	if gone == nil {
		return nil, hitl.Errorf(hitl.ENOTFOUND, "no web session")
	}
	return gone, nil
}

// PruneWebSessions implements hitl.WebSessionStore: it reads the expiry index from
// its start, and writes nothing when nothing expired.
func (db *DB) PruneWebSessions(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n, err := db.pruneExpired(bucketWebSessionsByExpiry, now, limit, func(tx *bolt.Tx, key, id []byte) (bool, error) {
		if err := tx.Bucket(bucketWebSessionsByExpiry).Delete(key); err != nil {
			return false, err
		}
		return true, tx.Bucket(bucketWebSessions).Delete(id)
	})
	if err != nil {
		return 0, fmt.Errorf("store: prune web sessions: %w", err)
	}
	return n, nil
}
