package service_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// alertLoad is a service with alerts over a memory store and a clock the
// script moves.
type alertLoad struct {
	st     *memstore.Store
	clock  *clocktest.Clock
	svc    *service.Service
	alerts *service.Alerts
	n      int
}

func newAlertLoad(t *testing.T, st *memstore.Store, clock *clocktest.Clock) *alertLoad {
	t.Helper()
	l := &alertLoad{st: st, clock: clock}
	l.svc = service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock,
		NewID: func() string { l.n++; return fmt.Sprintf("q_%d_%d", clock.Now().Unix(), l.n) }})
	var err error
	l.alerts, err = l.svc.Observation.NewAlerts(context.Background(), observe.AlertConfig{Channel: "C0ALERTS"})
	require.NoError(t, err)
	return l
}

func (l *alertLoad) ask(t *testing.T, typ hitl.QuestionType) *hitl.Question {
	t.Helper()
	q, _, err := l.svc.Questions.Create(ctxAs(auth.TokenPrincipal("ci", nil, "")), "run-load", hitl.NewQuestion{Question: "Go on?", Type: typ})
	require.NoError(t, err)
	return q
}

func (l *alertLoad) answer(t *testing.T, id string) {
	t.Helper()
	_, err := l.svc.Questions.Answer(ctxAs(auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeAnswer}, "")), id, hitl.Response{Value: "yes"})
	require.NoError(t, err)
}

// check runs the alerts and returns the changes as "name state".
func (l *alertLoad) check(t *testing.T) []string {
	t.Helper()
	changes, err := l.alerts.Check(context.Background())
	require.NoError(t, err)
	var out []string
	for _, c := range changes {
		out = append(out, c.Name+" "+string(c.State))
	}
	return out
}

// alertEvents lists the alert events on the log as "name state".
func alertEvents(t *testing.T, st hitl.Store) []string {
	t.Helper()
	evs, err := st.Events(context.Background(), 0, 0)
	require.NoError(t, err)
	var out []string
	for _, ev := range evs {
		if ev.Type == hitl.EventAlert {
			out = append(out, ev.Alert.Name+" "+string(ev.Alert.State))
		}
	}
	return out
}

func ctxAs(p auth.Principal) context.Context { return auth.WithPrincipal(context.Background(), p) }

// TestAlertsStartAndClearOnce drives the questions API's three alerts with a
// scripted load and an injected clock, checking after every step as the
// sweeper does: each starts once and clears once, on the log, and an
// alert active across a restart of the service is not started again.
func TestAlertsStartAndClearOnce(t *testing.T) {
	st := memstore.New()
	clock := clocktest.New(time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC))
	l := newAlertLoad(t, st, clock)
	assert.Empty(t, l.check(t), "an idle service raises nothing")

	// 10 blocking questions: 7 answered, 3 time out (30 % > 20 %).
	var qs []*hitl.Question
	for range 10 {
		qs = append(qs, l.ask(t, hitl.Blocking))
	}
	for _, q := range qs[:7] {
		clock.Add(time.Second)
		l.answer(t, q.ID)
		assert.Empty(t, l.check(t), "fewer than 10 settled: no rate yet")
	}
	clock.Add(31 * time.Minute)
	_, err := l.svc.Questions.SweepExpired(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"timeout_rate:blocking started"}, l.check(t))
	for range 5 {
		clock.Add(time.Second)
		assert.Empty(t, l.check(t), "a sweep while it holds posts nothing")
	}

	// A failed creation (no question text) starts creation_errors.
	_, _, err = l.svc.Questions.Create(ctxAs(auth.TokenPrincipal("ci", nil, "")), "run-load", hitl.NewQuestion{})
	require.Equal(t, fault.EINVALID, fault.Code(err))
	assert.Equal(t, []string{"creation_errors started"}, l.check(t))
	assert.Empty(t, l.check(t))

	// A blocking question nobody answers for more than an hour.
	waiting := l.ask(t, hitl.Blocking)
	_, err = l.svc.Questions.Answer(ctxAs(auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeAnswer}, "")), waiting.ID, hitl.Response{Value: "later"})
	require.NoError(t, err) // answered: it does not count
	slow, _, err := l.svc.Questions.Create(ctxAs(auth.TokenPrincipal("ci", nil, "")), "run-slow",
		hitl.NewQuestion{Question: "Which region?", TimeoutMinutes: ptr(240.0)})
	require.NoError(t, err)
	clock.Add(59 * time.Minute)
	assert.Equal(t, []string{"timeout_rate:blocking cleared"}, l.check(t),
		"the 7 answers left the window: 3 settled are fewer than min_settled")
	clock.Add(2 * time.Minute)
	assert.Equal(t, []string{"creation_errors cleared", "unanswered_blocking started"}, l.check(t),
		"the failed creation left the window; the question has waited 61 minutes")
	assert.Empty(t, l.check(t))

	// Stats shows what is active.
	st24, err := l.svc.Observation.Stats(ctxAs(auth.LocalPrincipal("")), observe.StatsQuery{})
	require.NoError(t, err)
	require.Len(t, st24.Alerts, 1)
	assert.Equal(t, "unanswered_blocking", st24.Alerts[0].Name)

	// A restart: the active alert is read back and not started again.
	l2 := newAlertLoad(t, st, clock)
	assert.Equal(t, []string{"unanswered_blocking"}, names(l2.alerts.Active()))
	assert.Empty(t, l2.check(t), "still holding after the restart: nothing new")
	l2.answer(t, slow.ID)
	assert.Equal(t, []string{"unanswered_blocking cleared"}, l2.check(t))
	assert.Empty(t, l2.check(t))

	assert.Equal(t, []string{
		"timeout_rate:blocking started", "creation_errors started",
		"timeout_rate:blocking cleared", "creation_errors cleared",
		"unanswered_blocking started", "unanswered_blocking cleared",
	}, alertEvents(t, st), "each alert started once and cleared once, on the log")
}

// TestAlertsWindowAfterRestart: the window of the last hour is read back
// from the settle-time index, so an alert that holds is not cleared by a
// restart, and a restart does not count a settlement twice.
func TestAlertsWindowAfterRestart(t *testing.T) {
	st := memstore.New()
	clock := clocktest.New(time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC))
	l := newAlertLoad(t, st, clock)
	for range 10 {
		l.ask(t, hitl.Approval)
	}
	clock.Add(16 * time.Minute) // approvals time out after 15
	_, err := l.svc.Questions.SweepExpired(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"timeout_rate:approval started"}, l.check(t))

	l2 := newAlertLoad(t, st, clock)
	assert.Empty(t, l2.check(t), "the 10 timeouts are still in the window after the restart")
	clock.Add(59 * time.Minute)
	assert.Empty(t, l2.check(t), "still in the window")
	clock.Add(2 * time.Minute)
	assert.Equal(t, []string{"timeout_rate:approval cleared"}, l2.check(t), "the window moved past them")
}

func names(as []hitl.Alert) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name)
	}
	return out
}
