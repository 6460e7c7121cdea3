package sweeper_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/hitlbot/hitl/sweeper"
	"github.com/stretchr/testify/require"
)

func TestSweeper(t *testing.T) {
	t.Run("sweeps at start and then on schedule", func(t *testing.T) {
		calls := make(chan struct{}, 10)
		s, err := sweeper.Start("@every 1s", func(context.Context) (int, error) {
			calls <- struct{}{}
			return 0, nil
		}, slog.New(slog.NewTextHandler(io.Discard, nil)))
		require.NoError(t, err)
		defer s.Stop()
		for i := range 2 {
			select {
			case <-calls:
			case <-time.After(5 * time.Second):
				t.Fatalf("sweep %d did not run", i+1)
			}
		}
	})
	t.Run("bad schedule is refused", func(t *testing.T) {
		_, err := sweeper.Start("whenever", func(context.Context) (int, error) { return 0, nil }, slog.Default())
		require.Error(t, err)
	})
}

func TestWork(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	setup := func(t *testing.T) (*memstore.Store, *clocktest.Clock, sweeper.SweepFunc) {
		st := memstore.New()
		clock := clocktest.New(t0)
		return st, clock, sweeper.Work(lifecycleOf(service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock})), 0)
	}
	put := func(t *testing.T, st hitl.Store, i int, expires time.Time) {
		t.Helper()
		require.NoError(t, st.PutLearnedRule(context.Background(), &hitl.LearnedRule{ID: fmt.Sprintf("r_%06d", i), Agent: "api:ci",
			OpType: hitl.OpShell, Resource: fmt.Sprintf("make %d", i), CreatedAt: t0, ExpiresAt: expires}))
	}
	left := func(t *testing.T, st hitl.Store) int {
		t.Helper()
		page, err := st.LearnedRules(context.Background(), hitl.LearnedRuleFilter{Limit: hitl.MaxPageSize})
		require.NoError(t, err)
		return len(page.Rules)
	}

	t.Run("learned rules are pruned once the clock passes their expiry", func(t *testing.T) {
		st, clock, work := setup(t)
		put(t, st, 1, t0.Add(time.Hour))
		put(t, st, 2, t0.Add(2*time.Hour))
		n, err := work(context.Background())
		require.NoError(t, err)
		require.Zero(t, n, "nothing expired yet")
		require.Equal(t, 2, left(t, st))

		clock.Add(time.Hour)
		n, err = work(context.Background())
		require.NoError(t, err)
		require.Equal(t, 1, n, "the rule expiring at now goes")
		require.Equal(t, 1, left(t, st))
		r, err := st.LearnedRule(context.Background(), hitl.LearnedRuleKey{Agent: "api:ci", OpType: hitl.OpShell, Resource: "make 2"})
		require.NoError(t, err)
		require.NotNil(t, r, "the later one stays")
	})

	t.Run("many expired rules are pruned in batches until done", func(t *testing.T) {
		st, clock, work := setup(t)
		for i := range 700 {
			put(t, st, i, t0.Add(time.Minute))
		}
		put(t, st, 9999, t0.Add(24*time.Hour))
		clock.Add(time.Hour)
		n, err := work(context.Background())
		require.NoError(t, err)
		require.Equal(t, 700, n)
		require.Equal(t, 1, left(t, st))
	})
}

// The service is what the sweeper runs.

func TestWorkSendsReminders(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	st := memstore.New()
	clock := clocktest.New(t0)
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock,
		Reminders: hitl.ReminderPolicies{hitl.Blocking: {Every: []hitl.Duration{hitl.Duration(10 * time.Minute)}}}})
	work := sweeper.Work(lifecycleOf(svc), 0)
	ctx := auth.WithPrincipal(context.Background(), auth.TokenPrincipal("ci", nil, ""))
	q, _, err := svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Deploy?"})
	require.NoError(t, err)
	n, err := work(context.Background())
	require.NoError(t, err)
	require.Equal(t, 0, n, "nothing due yet")
	clock.Add(10 * time.Minute)
	n, err = work(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n, "the reminder is sent by the sweep")
	got, err := st.Question(context.Background(), q.ID)
	require.NoError(t, err)
	require.Equal(t, 1, got.Reminders.Sent)
	n, err = work(context.Background())
	require.NoError(t, err)
	require.Equal(t, 0, n, "once")
}

func TestWorkEndsSilentSessions(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	st := memstore.New()
	clock := clocktest.New(t0)
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock,
		Sessions: steer.SessionTimes{IdleAfter: 10 * time.Minute, EndAfter: time.Hour}})
	work := sweeper.Work(lifecycleOf(svc), 0)
	ctx := auth.WithPrincipal(context.Background(), auth.TokenPrincipal("claude", nil, ""))
	_, err := svc.Runs.Hook(ctx, steer.SessionHook{RunID: "claude-s", Agent: "Claude Code", Event: steer.HookSessionStart})
	require.NoError(t, err)
	clock.Add(time.Hour)
	n, err := work(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n, "the silent session is ended by the sweep")
	run, err := st.Run(context.Background(), "claude-s")
	require.NoError(t, err)
	require.Equal(t, steer.RunAborted, run.Control.Status)
	require.Equal(t, steer.ReasonIdle, run.Control.Reason)
}

// lifecycleOf is the sweeper's part of svc, as the wiring fills it
// (cmd/hitl/adapters.go).
func lifecycleOf(svc *service.Service) sweeper.Lifecycle {
	return sweeper.Lifecycle{Questions: svc.Questions, Runs: svc.Runs, Policies: svc.Policies, Guard: svc.Guard}
}
