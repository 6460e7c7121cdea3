package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/storetest"
)

const wakeWithin = 10 * time.Second

func openDB(t *testing.T, url string) *DB {
	t.Helper()
	db, err := Open(context.Background(), url)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func newNotifier(t *testing.T, db *DB) *Notifier {
	t.Helper()
	n, err := NewNotifier(context.Background(), db, nil)
	if err != nil {
		t.Fatalf("notifier: %v", err)
	}
	t.Cleanup(n.Close)
	return n
}

func woken(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(wakeWithin):
		t.Fatalf("%s: not woken within %s", what, wakeWithin)
	}
}

func TestNotifierContract(t *testing.T) {
	storetest.RunNotifier(t, func(t *testing.T) hitl.Notifier { return newNotifier(t, openDB(t, pgtest.DB(t))) })
}

// A waiter on one replica is woken by a change another published.
func TestNotifierWakesOtherReplicas(t *testing.T) {
	url := pgtest.DB(t)
	a, b := newNotifier(t, openDB(t, url)), newNotifier(t, openDB(t, url))
	ch, cancel := a.Watch("q_1")
	defer cancel()
	changed := a.Changed()
	other, cancelOther := a.Watch("q_2")
	defer cancelOther()
	b.Publish("q_1")
	woken(t, ch, "the watcher of q_1 on the other replica")
	woken(t, changed, "Changed on the other replica")
	b.Publish("q_2")
	woken(t, other, "the watcher of q_2")
}

// A replica whose LISTEN connection is cut wakes every waiter once it
// listens again: what changed in between is read again.
func TestNotifierLostConnectionWakesEveryone(t *testing.T) {
	url := pgtest.DB(t)
	db := openDB(t, url)
	n := newNotifier(t, db)
	ch, cancel := n.Watch("q_never_published")
	defer cancel()
	changed := n.Changed()
	var killed int
	if err := db.pool.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database()`, listenerName).Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("terminate the LISTEN connection: %d terminated, %v", killed, err)
	}
	woken(t, ch, "a watcher of an id nobody published")
	woken(t, changed, "Changed")
	select {
	case <-n.regained:
	case <-time.After(wakeWithin):
		t.Fatal("the LISTEN connection was not made again")
	}
	after, cancelAfter := n.Watch("q_1")
	defer cancelAfter()
	other := newNotifier(t, openDB(t, url))
	other.Publish("q_1")
	woken(t, after, "a watcher after the connection came back")
}

// Ids travel whatever bytes they hold (a run's key holds a NUL) and
// however long they are (too long for a payload: everyone is woken).
func TestNotifierCarriesAnyID(t *testing.T) {
	url := pgtest.DB(t)
	a, b := newNotifier(t, openDB(t, url)), newNotifier(t, openDB(t, url))
	for _, id := range []string{"run\x00loop-1", "é✓", string(make([]byte, 10000))} {
		ch, cancel := a.Watch(id)
		b.Publish(id)
		woken(t, ch, "a watcher of an id of "+fmt.Sprint(len(id))+" bytes")
		cancel()
	}
}
