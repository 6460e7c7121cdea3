// Package store is the bbolt implementation of hitl.Store: questions with
// their indexes (pending, by deadline, by job, idempotency keys) and the
// durable event log, in one file.
//
// Every write is committed with fsync before the method returns.
// Concurrent writers share commits (commit.go).
package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// appendFill is how full bbolt packs the pages of a bucket whose new keys
// come last (events by sequence, questions by their time-ordered ids):
// bbolt's default (half) suits keys inserted anywhere, and leaves every
// page of an append-only bucket half empty, so a commit writes twice the
// pages its new records need.
const appendFill = 0.9

// SchemaVersion is the layout version this package reads and writes. It is
// stored in the meta bucket and checked at open; an older file is migrated
// (migrate.go).
const SchemaVersion = 11

// Bucket names and their layout. Keys are big-endian so that byte order is
// time or sequence order; the encodings are in keys.go. Later buckets (Slack
// messages, runs, dedup) are added here and to allBuckets.
var (
	bucketMeta        = []byte("meta")          // "schema" → uint64 BE
	bucketQuestions   = []byte("questions")     // id → question JSON
	bucketRuns        = []byte("runs")          // run id → run JSON
	bucketByDeadline  = []byte("by_deadline")   // timeoutAt ‖ id → "" (pending only)
	bucketByRun       = []byte("by_job")        // runID ‖ 0x00 ‖ createdAt ‖ id → ""
	bucketByCreated   = []byte("by_created")    // createdAt ‖ id → ""
	bucketByStatus    = []byte("by_status")     // status ‖ 0x00 ‖ createdAt ‖ id → ""
	bucketByAsker     = []byte("by_asker")      // asker ‖ 0x00 ‖ createdAt ‖ id → ""
	bucketByAssignee  = []byte("by_assignee")   // assignee ‖ 0x00 ‖ createdAt ‖ id → "" (pending only)
	bucketUnassigned  = []byte("unassigned")    // createdAt ‖ id → "" (pending, no assignee)
	bucketRunPending  = []byte("run_pending")   // runID ‖ 0x00 ‖ createdAt ‖ id → 1 if the run waits on it, else 0
	bucketBySettled   = []byte("by_settled")    // respondedAt ‖ id → "" (settled only)
	bucketByResponder = []byte("by_responder")  // respondedBy ‖ 0x00 ‖ respondedAt ‖ id → "" (answered only)
	bucketIdem        = []byte("idem")          // runID ‖ 0x00 ‖ asker ‖ 0x00 ‖ key → id (until the outcome is received)
	bucketEvents      = []byte("events")        // seq BE → event JSON
	bucketSealed      = []byte("sealed")        // id → "" (holds a sealed answer not yet received)
	bucketRunsActive  = []byte("runs_active")   // run id → "" (running or paused)
	bucketControl     = []byte("control")       // principal ‖ 0x00 ‖ request_id → control record JSON (the dedup cache, docs/protocol.md#steering; keys.go)
	bucketCounts      = []byte("counts")        // status → number of questions, uint64 BE
	bucketControlAge  = []byte("control_age")   // receivedAt ‖ control key → "" (for pruning)
	bucketRunsEnded   = []byte("runs_ended")    // updatedAt ‖ run id → "" (done, aborted or cancelled runs)
	bucketByFilter    = []byte("by_filter")     // list ‖ 0x00 ‖ createdAt ‖ id → "": asker × status, type, type × status (keys.go)
	bucketEventsByRun = []byte("events_by_run") // runID ‖ 0x00 ‖ seq BE → "" (events with a run id)
	bucketByDueList   = []byte("by_due_list")   // list ‖ 0x00 ‖ deadline ‖ id → "" (pending only): all, an assignee's, unassigned, a run's, a type's (keys.go)

	// The Slack bot's outbox (slack.go).
	bucketSlackMeta     = []byte("slack_meta")     // "cursor" → uint64 BE
	bucketSlackTasks    = []byte("slack_tasks")    // seq BE → task JSON
	bucketSlackMessages = []byte("slack_messages") // questionID ‖ 0x00 ‖ target → message JSON
	bucketSlackByTS     = []byte("slack_by_ts")    // channel ‖ 0x00 ‖ ts → questionID ‖ 0x00 ‖ target

	// The learned rules' buckets are in learned.go.

	keySchema = []byte("schema")
)

// allBuckets are created at open.
var allBuckets = [][]byte{
	bucketMeta, bucketQuestions, bucketRuns, bucketByDeadline, bucketByRun, bucketByCreated, bucketByStatus, bucketByAsker,
	bucketByAssignee, bucketUnassigned, bucketRunPending, bucketBySettled, bucketByResponder, bucketIdem, bucketEvents, bucketSealed,
	bucketRunsActive, bucketControl, bucketCounts, bucketControlAge, bucketRunsEnded, bucketByFilter, bucketEventsByRun, bucketByDueList,
	bucketSlackMeta, bucketSlackTasks, bucketSlackMessages, bucketSlackByTS, bucketOutboxByTarget,
	bucketLearned, bucketLearnedByKey, bucketLearnedByAgent, bucketLearnedByExpiry,
	bucketSignIns, bucketSignInsByExpiry, bucketByReminder, bucketMailMeta, bucketMail, bucketMailDue,
	bucketEnvelopes, bucketEnvelopesByAge,
	bucketWebhooks, bucketWebhookDue, bucketWebhookQueue, bucketWebhookByStatus, bucketWebhookSettled, bucketWebhookLast,
	bucketRollups, bucketRollupRuns, bucketRollupRunsAge,
	bucketAudit, bucketAuditMeta,
}

// DB is a hitl.Store in a bbolt file. It is safe for concurrent use.
type DB struct {
	bolt *bolt.DB
	path string
	// commits shares commits between concurrent writers (commit.go).
	commits commits
	// resumes marks deliveries a killed process may have started
	// (delivery_resume.go).
	resumes *resumes
}

// DB implements each part of hitl.Store whole.
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
)

type options struct {
	lockTimeout time.Duration
}

// Option configures Open.
type Option func(*options)

// WithLockTimeout sets how long Open waits for another process to release
// the file lock before giving up (default 1 s).
func WithLockTimeout(d time.Duration) Option {
	return func(o *options) { o.lockTimeout = d }
}

// Open opens (or creates) the database at path, creates its buckets and
// checks its schema version. The file is locked: a second process opening
// it gets an EUNAVAILABLE error saying the database is locked.
func Open(path string, opts ...Option) (*DB, error) {
	o := options{lockTimeout: time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	if o.lockTimeout <= 0 {
		o.lockTimeout = time.Second
	}
	bopts := boltOptions()
	bopts.Timeout = o.lockTimeout
	bdb, err := bolt.Open(path, 0o600, bopts)
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fault.Errorf(fault.EUNAVAILABLE, "database is locked by another hitl process: %s (waited %s)", path, o.lockTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := bdb.Update(initSchema); err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	res, err := openResumes(bdb)
	if err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return &DB{bolt: bdb, path: path, resumes: res}, nil
}

// initSchema checks the schema version of an existing file, stamps a new
// one, and creates the buckets. It never touches a file of a newer version.
func initSchema(tx *bolt.Tx) error {
	if meta := tx.Bucket(bucketMeta); meta != nil {
		v := meta.Get(keySchema)
		if len(v) != 8 {
			return errors.New("meta bucket has no schema version: not a hitl database")
		}
		switch ver := binary.BigEndian.Uint64(v); {
		case ver > SchemaVersion:
			return fmt.Errorf("database schema version %d is newer than this hitl supports (%d): upgrade hitl", ver, SchemaVersion)
		case ver < 1:
			return fmt.Errorf("database schema version %d is invalid", ver)
		case ver < SchemaVersion:
			if err := migrate(tx, ver); err != nil {
				return err
			}
		}
	} else {
		foreign := tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			return fmt.Errorf("the file has bucket %q but no hitl meta bucket: not a hitl database", name)
		})
		if foreign != nil {
			return foreign
		}
		meta, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return fmt.Errorf("create meta bucket: %w", err)
		}
		if err := meta.Put(keySchema, u64(SchemaVersion)); err != nil {
			return fmt.Errorf("stamp schema version: %w", err)
		}
	}
	for _, name := range allBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}

// boltOptions are the bbolt options of every read-write open of a hitl
// file, and of the raw bbolt side of the benchmarks (like for like). The
// freelist is kept in a hash map (FreelistMapType), whose allocation does
// not slow down as the list grows, and written at each commit: without it
// (NoFreelistSync, as etcd runs bbolt) a commit writes one page less
// (4 KiB of about 170), but every open walks every page of the file to
// rebuild the list: 68 ms instead of 1 ms for 100,000 questions (234 MB)
// in the page cache (BenchmarkOpenFreelist, docs/benchmarks.md).
func boltOptions() *bolt.Options {
	return &bolt.Options{FreelistType: bolt.FreelistMapType}
}

// Path returns the file the database lives in.
func (db *DB) Path() string { return db.path }

// Close waits for running transactions and closes the file.
func (db *DB) Close() error {
	if err := db.bolt.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", db.path, err)
	}
	return nil
}
