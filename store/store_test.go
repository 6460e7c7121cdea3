package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/service"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/notify"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// openTestDB opens a database in a temporary directory and checks it
// (bbolt pages and indexes) when the test ends.
func openTestDB(tb testing.TB) *DB {
	tb.Helper()
	db, err := Open(filepath.Join(tb.TempDir(), "hitl.db"))
	require.NoError(tb, err)
	closeAndCheckOnCleanup(tb, db)
	return db
}

func closeAndCheckOnCleanup(tb testing.TB, db *DB) {
	tb.Cleanup(func() {
		require.NoError(tb, db.Check())
		require.NoError(tb, db.Close())
	})
}

// lastID numbers questions across services, so that a second service on
// the same database does not reuse ids.
var lastID atomic.Int64

// newService runs the lifecycle on db with a fake clock, sequential ids
// (sorting like creation) and a 1-minute minimum timeout.
func newService(db hitl.Store, clock hitl.Clock) *service.Service {
	timeouts := hitl.DefaultTimeouts()
	timeouts.Min = time.Minute
	return service.NewService(db, service.ServiceConfig{Notifier: notify.New(),
		Clock:    clock,
		Timeouts: timeouts,
		NewID:    func() string { return fmt.Sprintf("q_%06d", lastID.Add(1)) },
	})
}

func newClock() *clocktest.Clock { return clocktest.New(t0) }

func as(actor string) context.Context { return principaltest.As(context.Background(), actor) }

func minutes(m float64) *float64 { return &m }

// ask creates a text question in job that times out after m minutes.
func ask(t *testing.T, svc *service.Service, job string, m float64) *hitl.Question {
	t.Helper()
	q, created, err := svc.Questions.Create(as("api:agent"), job, hitl.NewQuestion{Question: "Which database?", TimeoutMinutes: minutes(m)})
	require.NoError(t, err)
	require.True(t, created)
	return q
}

func ids(qs []*hitl.Question) []string {
	out := []string{}
	for _, q := range qs {
		out = append(out, q.ID)
	}
	return out
}
