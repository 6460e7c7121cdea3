// Package postgres is the PostgreSQL implementation of hitl.Store and
// hitl.Outbox (pgx with pgxpool), for several hitl replicas on one
// database. It stores what the root computed, atomically, and reads by
// index; it never decides.
//
// Records are stored as the JSON the bbolt store writes (a bytea column),
// beside the columns their indexes are built on. Every list is read from an
// index in the list's order (schema.go names them), so its cost grows with
// the page. Every write is one transaction committed (with the server's
// synchronous commit) before the method returns.
//
// Concurrency: a question's row is locked (FOR UPDATE) while it is
// updated; a run is locked with a transaction-scoped advisory lock on its
// id (so a run that does not exist yet can be locked); the event log's
// counter row is taken last in every transaction that appends, so events
// commit in Seq order and a reader that saw Seq n has seen every event
// before it. Locks are taken in one order (questions by id, runs by id,
// counts, the event counter); a deadlock or serialization failure the
// server reports anyway is retried, so an update's fn may run more than
// once, as hitl.Store allows.
package postgres

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is a hitl.Store and hitl.Outbox in a PostgreSQL database. It is safe
// for concurrent use, by any number of processes.
type DB struct {
	pool *pgxpool.Pool
	// holder names this process in delivery claims; lease is how long
	// its claims hold (nanoseconds).
	holder string
	lease  atomic.Int64
}

// DB implements each part of hitl.Store whole, and hitl.Outbox.
var (
	_ hitl.Store          = (*DB)(nil) // every part: what the contract suite runs
	_ hitl.QuestionStore  = (*DB)(nil)
	_ hitl.ReminderStore  = (*DB)(nil)
	_ hitl.RunStore       = (*DB)(nil)
	_ hitl.EventStore     = (*DB)(nil)
	_ hitl.PolicyStore    = (*DB)(nil)
	_ hitl.RetentionStore = (*DB)(nil)
	_ hitl.SignInStore    = (*DB)(nil)
	_ hitl.EnvelopeStore  = (*DB)(nil)
	_ hitl.WebhookOutbox  = (*DB)(nil)
	_ hitl.Outbox         = (*DB)(nil)
)

// IsURL reports whether s names a PostgreSQL database (postgres:// or
// postgresql://) rather than a bbolt file.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Open connects to the database at url and brings its schema to this
// version (schema.go), once however many processes open it at the same
// time. It fails when the database is unreachable or its schema is newer
// than this hitl.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fault.Errorf(fault.EINVALID, "database URL: %v", err)
	}
	if cfg.MaxConns < 8 {
		cfg.MaxConns = 8
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	db := &DB{pool: pool, holder: newHolder()}
	db.lease.Store(int64(DefaultLease))
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// newHolder names a process in claims: its host, pid and a random part.
func newHolder() string {
	host, _ := os.Hostname()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%x", host, os.Getpid(), b)
}

// Close closes the connections.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Ping reports whether the database answers: nil, or an EUNAVAILABLE
// error saying why not.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.pool.Ping(ctx); err != nil {
		return classify("ping", err)
	}
	return nil
}

// Pool returns the connection pool (for the notifier and tests).
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// maxAttempts bounds the retries of a transaction the server aborted for a
// deadlock or a serialization failure.
const maxAttempts = 8

// write runs fn in a read-committed transaction and commits it, retrying
// the whole transaction when the server aborts it for a deadlock or a
// serialization failure. fn must reset what it reports at its top.
func (db *DB) write(ctx context.Context, what string, fn func(tx pgx.Tx) error) error {
	var err error
	for range maxAttempts {
		err = pgx.BeginFunc(ctx, db.pool, fn)
		if !retryable(err) {
			break
		}
	}
	if err != nil {
		return classify(what, err)
	}
	return nil
}

// read runs fn in a repeatable-read, read-only transaction: one snapshot.
func (db *DB) read(ctx context.Context, what string, fn func(tx pgx.Tx) error) error {
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
	if err != nil {
		return classify(what, err)
	}
	return nil
}

func isUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// classify returns err as the fault error callers can act on: a fault.Error
// as it is; the database unreachable (connection refused or lost, shut
// down, starting up, out of connections) as EUNAVAILABLE; a value the
// database refuses (a NUL byte, invalid UTF-8) as EINVALID; a context's
// error as it is; anything else wrapped, an internal error.
func classify(what string, err error) error {
	var he *fault.Error
	var d domain
	if errors.As(err, &he) || errors.As(err, &d) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), strings.HasPrefix(pe.Code, "57P"), strings.HasPrefix(pe.Code, "53"):
			return fault.Errorf(fault.EUNAVAILABLE, "the database is unavailable (%s: %s)", what, pe.Message)
		case strings.HasPrefix(pe.Code, "22"):
			return fault.Errorf(fault.EINVALID, "the database refused a value (%s): %s", what, pe.Message)
		}
		return fmt.Errorf("postgres: %s: %w", what, err)
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	if errors.As(err, &ne) || errors.As(err, &ce) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) ||
		strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF") {
		return fault.Errorf(fault.EUNAVAILABLE, "the database is unreachable (%s): %v", what, err)
	}
	return fmt.Errorf("postgres: %s: %w", what, err)
}

// ns is t as unix nanoseconds, clamped to the int64 range: the sortable
// time of every time column.
func ns(t time.Time) int64 {
	const minSec, maxSec = math.MinInt64/int64(time.Second) + 1, math.MaxInt64/int64(time.Second) - 1
	switch s := t.Unix(); {
	case s < minSec:
		return math.MinInt64
	case s > maxSec:
		return math.MaxInt64
	}
	return t.UnixNano()
}

// nulFree checks that the strings a row is indexed by hold no NUL byte
// (PostgreSQL text cannot).
func nulFree(what string, ss ...string) error {
	for _, s := range ss {
		if strings.IndexByte(s, 0) >= 0 {
			return fault.Errorf(fault.EINVALID, "%s %q contains a NUL byte", what, s)
		}
	}
	return nil
}
