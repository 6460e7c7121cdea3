package observe_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func as(p hitl.Principal) context.Context { return hitl.WithPrincipal(context.Background(), p) }

// scriptedHistory is the root package's stats history (stats_test.go)
// over a service that reads stats from rollups; it returns the service at
// t0+1h. Inside the last 24 hours:
//
//	run-a: q1 blocking answered after 60 s, q2 blocking answered after
//	       120 s, q3 approval timed out (at t0+20m)
//	run-b: q4 blocking answered after 300 s, q5 error_recovery cancelled
//
// and, two days before, q0 of run-old answered (outside the window);
// two reminders and an escalation in the window, a reminder before it.
func scriptedHistory(t *testing.T) (*service.Service, *clocktest.Clock) {
	t.Helper()
	ctx := context.Background()
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	clock := clocktest.New(t0.Add(-48 * time.Hour))
	st := memstore.New()
	n := 0
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock, StatsWindow: observe.New(st),
		NewID: func() string { n++; return fmt.Sprintf("q%d", n-1) }})
	agent := as(hitl.TokenPrincipal("ci", nil, ""))
	ops := as(hitl.TokenPrincipal("ops", []hitl.Scope{hitl.ScopeAnswer}, ""))
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
	return svc, clock
}

// TestStatsFromRollups: the root package's scripted numbers, every one
// exact (five answers: the sketch keeps them exactly), from rollups.
func TestStatsFromRollups(t *testing.T) {
	svc, clock := scriptedHistory(t)
	local := as(hitl.LocalPrincipal(""))
	now := clock.Now()

	st, err := svc.Observation.Stats(local, hitl.StatsQuery{Since: 24 * time.Hour})
	require.NoError(t, err)
	assert.Equal(t, &hitl.Stats{Since: now.Add(-24 * time.Hour), Asked: 5, Answered: 3, TimedOut: 1, Cancelled: 1,
		AvgTimeToAnswerSeconds: 160, P50TimeToAnswerSeconds: 120, P90TimeToAnswerSeconds: 300,
		TimeoutRateByType: map[hitl.QuestionType]float64{hitl.Blocking: 0, hitl.Approval: 1, hitl.ErrorRecovery: 0},
		QuestionsPerRun:   2.5, ResponseRate: 0.75, RemindersSent: 2, Escalations: 1, Alerts: []hitl.Alert{}}, st)

	st, err = svc.Observation.Stats(local, hitl.StatsQuery{Since: 50 * time.Minute})
	require.NoError(t, err)
	assert.Equal(t, &hitl.Stats{Since: now.Add(-50 * time.Minute), TimedOut: 1,
		TimeoutRateByType: map[hitl.QuestionType]float64{hitl.Approval: 1}, Alerts: []hitl.Alert{}}, st,
		"only the timeout at t0+20m is in it")

	st, err = svc.Observation.Stats(local, hitl.StatsQuery{Since: 72 * time.Hour})
	require.NoError(t, err)
	assert.Equal(t, 6, st.Asked)
	assert.Equal(t, 4, st.Answered)
	assert.Equal(t, 3, st.RemindersSent)
	assert.InDelta(t, 2.0, st.QuestionsPerRun, 0.001, "6 questions of 3 runs")

	st, err = svc.Observation.Stats(local, hitl.StatsQuery{Since: 24 * time.Hour, Run: "run-a"})
	require.NoError(t, err)
	assert.Equal(t, 3, st.Asked, "one run's stats still read the run's questions")
	assert.Equal(t, 3.0, st.QuestionsPerRun)
}

// TestTheWindowStartsAtItsMinute: a window whose since falls inside a
// minute starts at that minute (Since says so), and holds what the
// minute holds before since too.
func TestTheWindowStartsAtItsMinute(t *testing.T) {
	svc, clock := scriptedHistory(t) // now: t0+1h; q1 asked at t0, q2 at t0+10s
	local := as(hitl.LocalPrincipal(""))
	now := clock.Now()

	st, err := svc.Observation.Stats(local, hitl.StatsQuery{Since: time.Hour - 15*time.Second}) // since t0+15s
	require.NoError(t, err)
	assert.True(t, st.Since.Equal(now.Add(-time.Hour)), "since %v", st.Since)
	assert.Equal(t, 5, st.Asked, "q1 and q2 (asked at t0 and t0+10s) are in the minute of t0+15s")

	st, err = svc.Observation.Stats(local, hitl.StatsQuery{Since: time.Hour - 60*time.Second}) // since t0+1m
	require.NoError(t, err)
	assert.True(t, st.Since.Equal(now.Add(-time.Hour+time.Minute)))
	assert.Equal(t, 0, st.Asked, "all five were asked in the minute before")
	assert.Equal(t, 3, st.Answered, "q1 (at t0+1m), q2 and q4")
}
