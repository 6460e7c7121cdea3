package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/storetest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/store"
	"github.com/stretchr/testify/require"
)

// offlineDB is a database written directly, with no service running, as
// a previous run of hitl serve would have left it.
type offlineDB struct {
	path  string
	db    *store.DB
	svc   *service.Service
	clock *clocktest.Clock
}

func openOffline(t testing.TB, path string, clock *clocktest.Clock) *offlineDB {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "hitl.db")
	}
	db, err := store.Open(path)
	require.NoError(t, err)
	return &offlineDB{path: path, db: db, clock: clock, svc: service.NewService(db, service.ServiceConfig{Notifier: notify.New(), Clock: clock})}
}

// close checks the file and closes it.
func (o *offlineDB) close(t testing.TB) {
	t.Helper()
	require.NoError(t, o.db.Check())
	require.NoError(t, o.db.Close())
}

// ask creates n questions in run, from 16 goroutines so that they share
// commits (one fsync per create would take seconds).
func (o *offlineDB) ask(t testing.TB, run string, n int) []*hitl.Question {
	t.Helper()
	ctx := principaltest.As(context.Background(), "api:agent")
	out := make([]*hitl.Question, n)
	o.parallel(t, n, func(i int) error {
		q, _, err := o.svc.Questions.Create(ctx, run, hitl.NewQuestion{Question: fmt.Sprintf("Deploy build %d to production?", i),
			Options: []hitl.Option{{Label: "Deploy"}, {Label: "Wait"}}})
		out[i] = q
		return err
	})
	return out
}

// answer answers qs, 16 at a time.
func (o *offlineDB) answer(t testing.TB, qs []*hitl.Question) {
	t.Helper()
	ctx := principaltest.As(context.Background(), "slack:U1")
	o.parallel(t, len(qs), func(i int) error {
		_, err := o.svc.Questions.Answer(ctx, qs[i].ID, hitl.Response{Value: "Wait"})
		return err
	})
}

func (o *offlineDB) parallel(t testing.TB, n int, fn func(i int) error) {
	t.Helper()
	storetest.Parallel(t, n, fn)
}
