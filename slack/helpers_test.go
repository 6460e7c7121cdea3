package slack

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// testBot is a bot over a real service on the in-memory store, calling
// api, without Socket Mode.
type testBot struct {
	*Bot
	st     *memstore.Store
	svc    *service.Service
	outbox hitl.Outbox
	clock  *clocktest.Clock
	ctx    context.Context // as the bot: an observer
}

func newTestBot(t testing.TB, api slackAPI, access access.Access, outbox hitl.Outbox) *testBot {
	t.Helper()
	clock := clocktest.New(t0)
	st := memstore.New()
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock, Access: access})
	if outbox == nil {
		outbox = memstore.NewOutbox()
	}
	b := newBot(Config{DefaultChannel: "C0HITL", Access: access, Clock: clock, Envelopes: st,
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		PostInterval: time.Millisecond, RetryMin: time.Millisecond, RetryMax: 5 * time.Millisecond, HomeRefresh: time.Minute,
	}, api, serviceOf(svc), outbox)
	ctx := auth.WithPrincipal(context.Background(), auth.ObserverPrincipal("slack-bot"))
	b.calls = ctx
	return &testBot{Bot: b, st: st, svc: svc, outbox: outbox, clock: clock, ctx: ctx}
}

// ask creates a question as principal p, one millisecond after the last,
// in run-1 (agentP's) or p's own run (a run belongs to who started it).
func (tb *testBot) ask(t testing.TB, p auth.Principal, n hitl.NewQuestion) *hitl.Question {
	t.Helper()
	tb.clock.Add(time.Millisecond)
	run := "run-1"
	if p.ID != agentP.ID {
		run = "run-" + p.ID
	}
	q, _, err := tb.svc.Questions.Create(auth.WithPrincipal(context.Background(), p), run, n)
	require.NoError(t, err)
	return q
}

// runOutbox turns the events so far into deliveries and runs the workers
// until stop is called.
func (tb *testBot) runOutbox(t testing.TB) (stop func()) {
	t.Helper()
	_, err := tb.projectOnce(tb.ctx)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(tb.ctx)
	done := make(chan struct{})
	go func() { defer close(done); tb.work.run(ctx) }()
	return func() { cancel(); <-done }
}

var agentP = auth.TokenPrincipal("agent", []auth.Scope{auth.ScopeAsk}, "")

// flakyOutbox fails the first failures calls to Complete, and signals
// every Complete that succeeds.
type flakyOutbox struct {
	hitl.Outbox
	mu        sync.Mutex
	failures  int
	attempts  int
	completed chan hitl.Delivery
}

var _ hitl.Outbox = (*flakyOutbox)(nil)

func newFlakyOutbox(failures int) *flakyOutbox {
	return &flakyOutbox{Outbox: memstore.NewOutbox(), failures: failures, completed: make(chan hitl.Delivery, 16)}
}

func (f *flakyOutbox) Complete(ctx context.Context, d hitl.Delivery, rec *hitl.Delivered) error {
	f.mu.Lock()
	f.attempts++
	fail := f.attempts <= f.failures
	f.mu.Unlock()
	if fail {
		return errors.New("disk full")
	}
	if err := f.Outbox.Complete(ctx, d, rec); err != nil {
		return err
	}
	f.completed <- d
	return nil
}

// await receives from ch or fails the test after a deadline.
func await[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// serviceOf is the bot's part of svc, as the wiring fills it
// (cmd/hitl/adapters.go).
func serviceOf(svc *service.Service) Service {
	return Service{Log: svc.Log, Questions: svc.Questions, Runs: svc.Runs, Policies: svc.Policies, Alerts: svc.Observation}
}
