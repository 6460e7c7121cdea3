package main

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/postgres"
	"github.com/hitlbot/hitl/ratelimit"
	"github.com/hitlbot/hitl/seal"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/store"
	"github.com/hitlbot/hitl/webhook"
)

// Database is what Main runs on: a bbolt file, or a PostgreSQL database
// that several replicas share (db is a postgres:// URL). It is the stores
// by aggregate that wiring hands on, each to what uses it, not hitl.Store
// (the union the contract suite runs).
type Database interface {
	service.Stores     // the service's parts (mainsvc.go)
	hitl.AuditStore    // the audit trail (mainaudit.go)
	hitl.RollupStore   // the stats windows (observe)
	hitl.Outbox        // the Slack bot's deliveries
	hitl.EnvelopeStore // the Slack envelopes seen
	hitl.MailOutbox    // the mailer's (mainemail.go)
	webhook.Outbox     // the webhook worker's claims (mainwebhook.go)
	PruneWebhooks(ctx context.Context, before time.Time, limit int) (int, error)
	Close() error
}

// database is an opened Database with what goes with it: the notifier
// that wakes its waiters and whether its database answers.
type database struct {
	Database
	notifier hitl.Notifier
	ready    func(context.Context) error // nil: a file is always there
	stop     func()                      // stops the notifier, if it needs it
	// redispatch is how often the Slack bot looks for deliveries another
	// replica stopped doing (0: one process, only when it enqueues).
	redispatch time.Duration
	// shared makes the rate limiters whose buckets every replica
	// shares (nil: each limiter counts in this process).
	shared func(name string, perToken, perRun int) hitl.Limiter
}

// limiter returns the rate limiter of limit name: in the database when
// replicas share it, so a principal's limit holds across them.
func (d *database) limiter(name string, perToken, perRun int) hitl.Limiter {
	if d.shared != nil {
		return d.shared(name, perToken, perRun)
	}
	return ratelimit.New(perToken, perRun, nil)
}

// Close stops the notifier and closes the database.
func (d *database) Close() error {
	if d.stop != nil {
		d.stop()
	}
	return d.Database.Close()
}

// openDatabase opens cfg.DB.
func openDatabase(ctx context.Context, cfg config.Config, logger *slog.Logger) (*database, error) {
	if postgres.IsURL(cfg.DB) {
		db, err := postgres.Open(ctx, cfg.DB)
		if err != nil {
			if fault.Code(err) == fault.EINTERNAL {
				err = fault.Errorf(fault.EUNAVAILABLE, "db: %v", err)
			}
			return nil, err
		}
		n, err := postgres.NewNotifier(ctx, db, logger)
		if err != nil {
			_ = db.Close()
			return nil, err
		}
		shared := func(name string, perToken, perRun int) hitl.Limiter { return db.Limiter(name, perToken, perRun, nil) }
		return &database{Database: db, notifier: n, ready: db.Ping, stop: n.Close, redispatch: postgres.DefaultLease / 3, shared: shared}, nil
	}
	db, err := store.Open(cfg.DB)
	if err != nil {
		if fault.Code(err) == fault.EINTERNAL {
			err = fault.Errorf(fault.EUNAVAILABLE, "%v", err)
		}
		return nil, err
	}
	return &database{Database: db, notifier: notify.New()}, nil
}

// sealer is the cipher sealing sensitive answers: under cfg's key file,
// or a key made now; the root's rule says when a key file is needed.
func sealer(cfg config.Config) (*seal.Cipher, error) {
	if err := hitl.CheckSealKey(postgres.IsURL(cfg.DB), cfg.SealKeyFile != ""); err != nil {
		return nil, err
	}
	if cfg.SealKeyFile == "" {
		return seal.New(), nil
	}
	b, err := os.ReadFile(cfg.SealKeyFile)
	if err != nil {
		return nil, fault.Errorf(fault.EINVALID, "seal_key_file (HITL_SEAL_KEY_FILE): %v", err)
	}
	key, err := seal.ParseKey(b)
	clear(b)
	if err != nil {
		return nil, fault.Errorf(fault.EINVALID, "seal_key_file (HITL_SEAL_KEY_FILE) %s: %v", cfg.SealKeyFile, err)
	}
	c, err := seal.WithKey(key)
	clear(key)
	if err != nil {
		return nil, fault.Errorf(fault.EINVALID, "seal_key_file (HITL_SEAL_KEY_FILE) %s: %v", cfg.SealKeyFile, err)
	}
	return c, nil
}

// databaseName is how serve names its database to people: a URL without
// its password.
func databaseName(db string) string {
	if !postgres.IsURL(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "a PostgreSQL database (its URL does not parse)"
	}
	return u.Redacted()
}
