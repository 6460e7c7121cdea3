package service_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/statstest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// statsHistory is statstest.History, computed from the questions: the
// service at t0+1h, and t0.
func statsHistory(t *testing.T) (*service.Service, time.Time) {
	t.Helper()
	svc, _, t0 := statstest.History(t, nil)
	return svc, t0
}

// TestStatsOfAScriptedHistory asserts every number of hitl stats --json
// on a history whose answers are known.
func TestStatsOfAScriptedHistory(t *testing.T) {
	svc, t0 := statsHistory(t)
	local := ctxAs(auth.LocalPrincipal(""))
	now := t0.Add(time.Hour)

	t.Run("the last 24 hours", func(t *testing.T) {
		st, err := svc.Observation.Stats(local, observe.StatsQuery{Since: 24 * time.Hour})
		require.NoError(t, err)
		assert.Equal(t, &observe.Stats{Since: now.Add(-24 * time.Hour), Asked: 5, Answered: 3, TimedOut: 1, Cancelled: 1,
			AvgTimeToAnswerSeconds: 160, P50TimeToAnswerSeconds: 120, P90TimeToAnswerSeconds: 300,
			TimeoutRateByType: map[hitl.QuestionType]float64{hitl.Blocking: 0, hitl.Approval: 1, hitl.ErrorRecovery: 0},
			QuestionsPerRun:   2.5, ResponseRate: 0.75, RemindersSent: 2, Escalations: 1, Alerts: []hitl.Alert{}}, st)
	})
	t.Run("the default window is 24 hours", func(t *testing.T) {
		st, err := svc.Observation.Stats(local, observe.StatsQuery{})
		require.NoError(t, err)
		assert.Equal(t, now.Add(-24*time.Hour), st.Since)
		assert.Equal(t, 5, st.Asked)
	})
	t.Run("one run", func(t *testing.T) {
		st, err := svc.Observation.Stats(local, observe.StatsQuery{Since: 24 * time.Hour, Run: "run-a"})
		require.NoError(t, err)
		assert.Equal(t, &observe.Stats{Since: now.Add(-24 * time.Hour), Run: "run-a", Asked: 3, Answered: 2, TimedOut: 1,
			AvgTimeToAnswerSeconds: 90, P50TimeToAnswerSeconds: 60, P90TimeToAnswerSeconds: 120,
			TimeoutRateByType: map[hitl.QuestionType]float64{hitl.Blocking: 0, hitl.Approval: 1},
			QuestionsPerRun:   3, ResponseRate: 0.667, RemindersSent: 1, Escalations: 1, Alerts: []hitl.Alert{}}, st)
	})
	t.Run("a window that starts after the questions were asked", func(t *testing.T) {
		st, err := svc.Observation.Stats(local, observe.StatsQuery{Since: 50 * time.Minute})
		require.NoError(t, err)
		assert.Equal(t, &observe.Stats{Since: now.Add(-50 * time.Minute), TimedOut: 1,
			TimeoutRateByType: map[hitl.QuestionType]float64{hitl.Approval: 1}, Alerts: []hitl.Alert{}}, st,
			"only the timeout at t0+20m is in it")
	})
	t.Run("three days hold the older question and reminder", func(t *testing.T) {
		st, err := svc.Observation.Stats(local, observe.StatsQuery{Since: 72 * time.Hour})
		require.NoError(t, err)
		assert.Equal(t, 6, st.Asked)
		assert.Equal(t, 4, st.Answered)
		assert.Equal(t, 3, st.RemindersSent)
		assert.InDelta(t, 2.0, st.QuestionsPerRun, 0.001, "6 questions of 3 runs")
	})
	t.Run("bad input", func(t *testing.T) {
		_, err := svc.Observation.Stats(local, observe.StatsQuery{Since: -time.Hour})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
		_, err = svc.Observation.Stats(local, observe.StatsQuery{Run: "no spaces"})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
	})
}

// TestWhoMayReadStatsAndScrape is the rule of stats and /metrics, row by
// row, through the root service.
func TestWhoMayReadStatsAndScrape(t *testing.T) {
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New()})
	rows := []struct {
		who   string
		p     auth.Principal
		act   auth.Action
		allow bool
	}{
		{"the local person", auth.LocalPrincipal(""), auth.ActionStats, true},
		{"an answer token", answerer, auth.ActionStats, true},
		{"an admin token", admin, auth.ActionStats, true},
		{"a Slack answerer", slackAns, auth.ActionStats, true},
		{"an ask-only token", asker, auth.ActionStats, false},
		{"a Slack user who may not answer", slackBob, auth.ActionStats, false},
		{"the metrics listener", auth.ScrapePrincipal, auth.ActionStats, false},
		{"nobody", auth.Principal{}, auth.ActionStats, false},

		{"an admin token", admin, auth.ActionScrape, true},
		{"the local person", auth.LocalPrincipal(""), auth.ActionScrape, true},
		{"the metrics listener", auth.ScrapePrincipal, auth.ActionScrape, true},
		{"a Slack admin", slackAdm, auth.ActionScrape, true},
		{"an answer token", answerer, auth.ActionScrape, false},
		{"an ask-only token", asker, auth.ActionScrape, false},
		{"the Slack bot", auth.ObserverPrincipal("slack-bot"), auth.ActionScrape, false},
		{"nobody", auth.Principal{}, auth.ActionScrape, false},

		{"an admin token", admin, auth.ActionWebhooks, true},
		{"the local person", auth.LocalPrincipal(""), auth.ActionWebhooks, true},
		{"a Slack admin", slackAdm, auth.ActionWebhooks, true},
		{"an answer token", answerer, auth.ActionWebhooks, false},
		{"an ask-only token", asker, auth.ActionWebhooks, false},
		{"the metrics listener", auth.ScrapePrincipal, auth.ActionWebhooks, false},
		{"nobody", auth.Principal{}, auth.ActionWebhooks, false},

		{"the metrics listener", auth.ScrapePrincipal, auth.ActionAsk, false},
		{"the metrics listener", auth.ScrapePrincipal, auth.ActionAudit, false},
		{"the metrics listener", auth.ScrapePrincipal, auth.ActionSteer, false},
	}
	for _, r := range rows {
		t.Run(fmt.Sprintf("%s %s: %v", r.who, r.act, r.allow), func(t *testing.T) {
			var err error
			ctx := ctxAs(r.p)
			switch r.act {
			case auth.ActionStats:
				_, err = svc.Observation.Stats(ctx, observe.StatsQuery{})
			case auth.ActionScrape:
				err = svc.Guard.AuthorizeScrape(ctx)
			default:
				err = svc.Access().Authorize(r.p, r.act, nil)
			}
			if r.allow {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "%v", err)
		})
	}
}
