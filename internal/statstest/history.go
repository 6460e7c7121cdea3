// Package statstest scripts the history the stats tests read, so that the
// service's exact computation (service) and the rollups (observe) are
// checked against the same numbers.
package statstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
)

func as(p auth.Principal) context.Context { return auth.WithPrincipal(context.Background(), p) }

// History scripts a known history and returns the service at t0+1h,
// its clock and t0; window, when not nil, is the service's StatsWindow
// over the store (observe.New: stats from rollups). Inside the last 24 hours:
//
//	run-a: q1 blocking answered after 60 s, q2 blocking answered after
//	       120 s, q3 approval timed out (at t0+20m)
//	run-b: q4 blocking answered after 300 s, q5 error_recovery cancelled
//
// and, two days before, q0 of run-old answered (outside the window);
// two reminders and an escalation in the window, a reminder before it.
func History(t testing.TB, window func(hitl.RollupStore) service.StatsWindow) (*service.Service, *clocktest.Clock, time.Time) {
	t.Helper()
	ctx := context.Background()
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	clock := clocktest.New(t0.Add(-48 * time.Hour))
	st := memstore.New()
	n := 0
	cfg := service.ServiceConfig{Notifier: notify.New(), Clock: clock,
		NewID: func() string { n++; return fmt.Sprintf("q%d", n-1) }}
	if window != nil {
		cfg.StatsWindow = window(st)
	}
	svc := service.NewService(st, cfg)
	agent := as(auth.TokenPrincipal("ci", nil, ""))
	ops := as(auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeAnswer}, ""))
	at := func(d time.Duration) { clock.Add(t0.Add(d).Sub(clock.Now())) }
	ask := func(run string, typ hitl.QuestionType) *hitl.Question {
		q, _, err := svc.Questions.Create(agent, run, hitl.NewQuestion{Question: "Go on?", Type: typ})
		require.NoError(t, err)
		return q
	}
	answer := func(id string) {
		_, err := svc.Questions.Answer(ops, id, hitl.Response{Value: "yes"})
		require.NoError(t, err)
	}
	event := func(typ hitl.EventType, run string) {
		require.NoError(t, st.AppendEvent(ctx, &hitl.Event{Type: typ, RunID: run, At: clock.Now()}))
	}

	q0 := ask("run-old", hitl.Blocking)
	event("question_reminded", "run-old")
	at(-47 * time.Hour)
	answer(q0.ID)

	at(0)
	q1 := ask("run-a", hitl.Blocking)
	at(10 * time.Second)
	q2 := ask("run-a", hitl.Blocking)
	at(20 * time.Second)
	ask("run-a", hitl.Approval)
	at(30 * time.Second)
	q4 := ask("run-b", hitl.Blocking)
	at(40 * time.Second)
	q5 := ask("run-b", hitl.ErrorRecovery)
	at(60 * time.Second)
	answer(q1.ID)
	event("question_reminded", "run-a")
	at(100 * time.Second)
	_, err := svc.Questions.Cancel(agent, q5.ID, "not needed")
	require.NoError(t, err)
	at(130 * time.Second)
	answer(q2.ID)
	event("question_reminded", "run-b")
	event("question_escalated", "run-a")
	at(330 * time.Second)
	answer(q4.ID)
	at(20 * time.Minute)
	_, err = svc.Questions.SweepExpired(ctx)
	require.NoError(t, err)
	at(time.Hour)
	return svc, clock, t0
}
