package postgres

import (
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/notify"
	"github.com/jackc/pgx/v5"
)

// channel is the LISTEN/NOTIFY channel the replicas of one database share.
const channel = "hitl_changed"

// wakeAll is the payload that wakes every waiter: sent for an id too long
// for a NOTIFY payload (8,000 bytes).
const wakeAll = "*"

// payload is how id travels: base64 (ids may hold bytes that text cannot,
// like the NUL of a run's key), or wakeAll when too long.
func payload(id string) string {
	if base64.RawURLEncoding.EncodedLen(len(id)) > 7000 {
		return wakeAll
	}
	return base64.RawURLEncoding.EncodeToString([]byte(id))
}

// idOf decodes a payload; ok is false for wakeAll (or anything else that
// names no id).
func idOf(p string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil || p == wakeAll {
		return "", false
	}
	return string(b), true
}

// listenerName is the application_name of the LISTEN connection.
const listenerName = "hitl-listen"

// Notifier is hitl.Notifier across replicas: Publish sends the id with
// NOTIFY (after the change committed, so a woken replica reads it), and
// one LISTEN connection per process hands what every replica published to
// the process's waiters (a notify.Local). A LISTEN connection that is lost
// is made again, and then every waiter is woken: what changed meanwhile
// is read again, never missed.
type Notifier struct {
	local  *notify.Local
	url    string
	db     *DB
	logger *slog.Logger

	mu      sync.Mutex
	pending map[string]struct{} // ids to NOTIFY
	kick    chan struct{}       // a pending id waits to be sent

	ctx    context.Context
	cancel context.CancelFunc
	done   sync.WaitGroup
	// listening is closed once the first LISTEN is in place.
	listening chan struct{}
	// regained counts LISTEN connections made again after a loss (tests).
	regained chan struct{}
}

var _ hitl.Notifier = (*Notifier)(nil)

// retryEvery is how long the notifier waits before it connects again
// after losing the database, and before it resends a NOTIFY that failed.
const retryEvery = 250 * time.Millisecond

// NewNotifier starts listening on db's database and returns once the
// LISTEN is in place, so that no change published after it returns is
// missed. Close stops it.
func NewNotifier(ctx context.Context, db *DB, logger *slog.Logger) (*Notifier, error) {
	if logger == nil {
		logger = slog.Default()
	}
	base, cancel := context.WithCancel(context.Background())
	n := &Notifier{local: notify.New(), url: db.pool.Config().ConnConfig.ConnString(), db: db, logger: logger,
		pending: map[string]struct{}{}, kick: make(chan struct{}, 1), ctx: base, cancel: cancel,
		listening: make(chan struct{}), regained: make(chan struct{}, 16)}
	conn, err := n.listen(ctx)
	if err != nil {
		cancel()
		return nil, classify("listen for changes", err)
	}
	close(n.listening)
	n.done.Add(2)
	go n.receive(conn)
	go n.send()
	return n, nil
}

// Close stops listening and sending.
func (n *Notifier) Close() {
	n.cancel()
	n.done.Wait()
}

// Watch implements hitl.Notifier.
func (n *Notifier) Watch(id string) (<-chan struct{}, func()) { return n.local.Watch(id) }

// Changed implements hitl.Notifier.
func (n *Notifier) Changed() <-chan struct{} { return n.local.Changed() }

// Publish implements hitl.Notifier: the id goes to every replica (this
// one included) with NOTIFY, sent in the background; ids published while
// a send is under way go together in the next one. A send that fails is
// retried until it goes through.
func (n *Notifier) Publish(id string) {
	n.mu.Lock()
	n.pending[id] = struct{}{}
	n.mu.Unlock()
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

func (n *Notifier) send() {
	defer n.done.Done()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-n.kick:
		}
		n.mu.Lock()
		payloads := make([]string, 0, len(n.pending))
		for id := range n.pending {
			payloads = append(payloads, payload(id))
		}
		clear(n.pending)
		n.mu.Unlock()
		for {
			_, err := n.db.pool.Exec(n.ctx, `SELECT pg_notify($1, p) FROM unnest($2::text[]) p`, channel, payloads)
			if err == nil {
				break
			}
			if n.ctx.Err() != nil {
				return
			}
			if fault.Code(classify("notify", err)) != fault.EUNAVAILABLE {
				// A payload the server refuses: wake everyone instead.
				payloads = []string{wakeAll}
			}
			n.logger.Warn("NOTIFY failed; retrying", "err", err)
			select {
			case <-n.ctx.Done():
				return
			case <-time.After(retryEvery):
			}
		}
	}
}

// listen opens the LISTEN connection.
func (n *Notifier) listen(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(n.url)
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["application_name"] = listenerName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		_ = conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// receive hands notifications to the local waiters; when the connection
// is lost it makes it again and wakes every waiter.
func (n *Notifier) receive(conn *pgx.Conn) {
	defer n.done.Done()
	defer func() {
		if conn != nil {
			_ = conn.Close(context.Background())
		}
	}()
	for {
		note, err := conn.WaitForNotification(n.ctx)
		if err == nil {
			if id, ok := idOf(note.Payload); ok {
				n.local.Publish(id)
			} else {
				n.local.WakeAll()
			}
			continue
		}
		if n.ctx.Err() != nil {
			return
		}
		n.logger.Warn("lost the LISTEN connection to the database; connecting again", "err", err)
		_ = conn.Close(context.Background())
		conn = nil
		for conn == nil {
			select {
			case <-n.ctx.Done():
				return
			case <-time.After(retryEvery):
			}
			c, err := n.listen(n.ctx)
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					n.logger.Warn("LISTEN failed; retrying", "err", err)
				}
				continue
			}
			conn = c
		}
		n.local.WakeAll() // what changed while it was lost is read again
		select {
		case n.regained <- struct{}{}:
		default:
		}
	}
}
