package service_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/statstest"
	"github.com/hitlbot/hitl/notify"
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
	local := ctxAs(hitl.LocalPrincipal(""))
	now := t0.Add(time.Hour)

	t.Run("the last 24 hours", func(t *testing.T) {
		st, err := svc.Observation.Stats(local, hitl.StatsQuery{Since: 24 * time.Hour})
		require.NoError(t, err)
		assert.Equal(t, &hitl.Stats{Since: now.Add(-24 * time.Hour), Asked: 5, Answered: 3, TimedOut: 1, Cancelled: 1,
			AvgTimeToAnswerSeconds: 160, P50TimeToAnswerSeconds: 120, P90TimeToAnswerSeconds: 300,
			TimeoutRateByType: map[hitl.QuestionType]float64{hitl.Blocking: 0, hitl.Approval: 1, hitl.ErrorRecovery: 0},
			QuestionsPerRun:   2.5, ResponseRate: 0.75, RemindersSent: 2, Escalations: 1, Alerts: []hitl.Alert{}}, st)
	})
	t.Run("the default window is 24 hours", func(t *testing.T) {
		st, err := svc.Observation.Stats(local, hitl.StatsQuery{})
		require.NoError(t, err)
		assert.Equal(t, now.Add(-24*time.Hour), st.Since)
		assert.Equal(t, 5, st.Asked)
	})
	t.Run("one run", func(t *testing.T) {
		st, err := svc.Observation.Stats(local, hitl.StatsQuery{Since: 24 * time.Hour, Run: "run-a"})
		require.NoError(t, err)
		assert.Equal(t, &hitl.Stats{Since: now.Add(-24 * time.Hour), Run: "run-a", Asked: 3, Answered: 2, TimedOut: 1,
			AvgTimeToAnswerSeconds: 90, P50TimeToAnswerSeconds: 60, P90TimeToAnswerSeconds: 120,
			TimeoutRateByType: map[hitl.QuestionType]float64{hitl.Blocking: 0, hitl.Approval: 1},
			QuestionsPerRun:   3, ResponseRate: 0.667, RemindersSent: 1, Escalations: 1, Alerts: []hitl.Alert{}}, st)
	})
	t.Run("a window that starts after the questions were asked", func(t *testing.T) {
		st, err := svc.Observation.Stats(local, hitl.StatsQuery{Since: 50 * time.Minute})
		require.NoError(t, err)
		assert.Equal(t, &hitl.Stats{Since: now.Add(-50 * time.Minute), TimedOut: 1,
			TimeoutRateByType: map[hitl.QuestionType]float64{hitl.Approval: 1}, Alerts: []hitl.Alert{}}, st,
			"only the timeout at t0+20m is in it")
	})
	t.Run("three days hold the older question and reminder", func(t *testing.T) {
		st, err := svc.Observation.Stats(local, hitl.StatsQuery{Since: 72 * time.Hour})
		require.NoError(t, err)
		assert.Equal(t, 6, st.Asked)
		assert.Equal(t, 4, st.Answered)
		assert.Equal(t, 3, st.RemindersSent)
		assert.InDelta(t, 2.0, st.QuestionsPerRun, 0.001, "6 questions of 3 runs")
	})
	t.Run("bad input", func(t *testing.T) {
		_, err := svc.Observation.Stats(local, hitl.StatsQuery{Since: -time.Hour})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
		_, err = svc.Observation.Stats(local, hitl.StatsQuery{Run: "no spaces"})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
	})
}

// TestWhoMayReadStatsAndScrape is the rule of stats and /metrics, row by
// row, through the root service.
func TestWhoMayReadStatsAndScrape(t *testing.T) {
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New()})
	rows := []struct {
		who   string
		p     hitl.Principal
		act   hitl.Action
		allow bool
	}{
		{"the local person", hitl.LocalPrincipal(""), hitl.ActionStats, true},
		{"an answer token", answerer, hitl.ActionStats, true},
		{"an admin token", admin, hitl.ActionStats, true},
		{"a Slack answerer", slackAns, hitl.ActionStats, true},
		{"an ask-only token", asker, hitl.ActionStats, false},
		{"a Slack user who may not answer", slackBob, hitl.ActionStats, false},
		{"the metrics listener", hitl.ScrapePrincipal, hitl.ActionStats, false},
		{"nobody", hitl.Principal{}, hitl.ActionStats, false},

		{"an admin token", admin, hitl.ActionScrape, true},
		{"the local person", hitl.LocalPrincipal(""), hitl.ActionScrape, true},
		{"the metrics listener", hitl.ScrapePrincipal, hitl.ActionScrape, true},
		{"a Slack admin", slackAdm, hitl.ActionScrape, true},
		{"an answer token", answerer, hitl.ActionScrape, false},
		{"an ask-only token", asker, hitl.ActionScrape, false},
		{"the Slack bot", hitl.ObserverPrincipal("slack-bot"), hitl.ActionScrape, false},
		{"nobody", hitl.Principal{}, hitl.ActionScrape, false},

		{"an admin token", admin, hitl.ActionWebhooks, true},
		{"the local person", hitl.LocalPrincipal(""), hitl.ActionWebhooks, true},
		{"a Slack admin", slackAdm, hitl.ActionWebhooks, true},
		{"an answer token", answerer, hitl.ActionWebhooks, false},
		{"an ask-only token", asker, hitl.ActionWebhooks, false},
		{"the metrics listener", hitl.ScrapePrincipal, hitl.ActionWebhooks, false},
		{"nobody", hitl.Principal{}, hitl.ActionWebhooks, false},

		{"the metrics listener", hitl.ScrapePrincipal, hitl.ActionAsk, false},
		{"the metrics listener", hitl.ScrapePrincipal, hitl.ActionAudit, false},
		{"the metrics listener", hitl.ScrapePrincipal, hitl.ActionSteer, false},
	}
	for _, r := range rows {
		t.Run(fmt.Sprintf("%s %s: %v", r.who, r.act, r.allow), func(t *testing.T) {
			var err error
			ctx := ctxAs(r.p)
			switch r.act {
			case hitl.ActionStats:
				_, err = svc.Observation.Stats(ctx, hitl.StatsQuery{})
			case hitl.ActionScrape:
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
