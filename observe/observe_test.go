package observe_test

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/statstest"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func as(p auth.Principal) context.Context { return auth.WithPrincipal(context.Background(), p) }

// scriptedHistory is statstest.History over a service that reads stats
// from rollups; it returns the service at t0+1h.
func scriptedHistory(t *testing.T) (*service.Service, *clocktest.Clock) {
	t.Helper()
	svc, clock, _ := statstest.History(t, func(st hitl.RollupStore) service.StatsWindow { return observe.New(st) })
	return svc, clock
}

// TestStatsFromRollups: the root package's scripted numbers, every one
// exact (five answers: the sketch keeps them exactly), from rollups.
func TestStatsFromRollups(t *testing.T) {
	svc, clock := scriptedHistory(t)
	local := as(auth.LocalPrincipal(""))
	now := clock.Now()

	st, err := svc.Observation.Stats(local, observe.StatsQuery{Since: 24 * time.Hour})
	require.NoError(t, err)
	assert.Equal(t, &observe.Stats{Since: now.Add(-24 * time.Hour), Asked: 5, Answered: 3, TimedOut: 1, Cancelled: 1,
		AvgTimeToAnswerSeconds: 160, P50TimeToAnswerSeconds: 120, P90TimeToAnswerSeconds: 300,
		TimeoutRateByType: map[hitl.QuestionType]float64{hitl.Blocking: 0, hitl.Approval: 1, hitl.ErrorRecovery: 0},
		QuestionsPerRun:   2.5, ResponseRate: 0.75, RemindersSent: 2, Escalations: 1, Alerts: []hitl.Alert{}}, st)

	st, err = svc.Observation.Stats(local, observe.StatsQuery{Since: 50 * time.Minute})
	require.NoError(t, err)
	assert.Equal(t, &observe.Stats{Since: now.Add(-50 * time.Minute), TimedOut: 1,
		TimeoutRateByType: map[hitl.QuestionType]float64{hitl.Approval: 1}, Alerts: []hitl.Alert{}}, st,
		"only the timeout at t0+20m is in it")

	st, err = svc.Observation.Stats(local, observe.StatsQuery{Since: 72 * time.Hour})
	require.NoError(t, err)
	assert.Equal(t, 6, st.Asked)
	assert.Equal(t, 4, st.Answered)
	assert.Equal(t, 3, st.RemindersSent)
	assert.InDelta(t, 2.0, st.QuestionsPerRun, 0.001, "6 questions of 3 runs")

	st, err = svc.Observation.Stats(local, observe.StatsQuery{Since: 24 * time.Hour, Run: "run-a"})
	require.NoError(t, err)
	assert.Equal(t, 3, st.Asked, "one run's stats still read the run's questions")
	assert.Equal(t, 3.0, st.QuestionsPerRun)
}

// TestTheWindowStartsAtItsMinute: a window whose since falls inside a
// minute starts at that minute (Since says so), and holds what the
// minute holds before since too.
func TestTheWindowStartsAtItsMinute(t *testing.T) {
	svc, clock := scriptedHistory(t) // now: t0+1h; q1 asked at t0, q2 at t0+10s
	local := as(auth.LocalPrincipal(""))
	now := clock.Now()

	st, err := svc.Observation.Stats(local, observe.StatsQuery{Since: time.Hour - 15*time.Second}) // since t0+15s
	require.NoError(t, err)
	assert.True(t, st.Since.Equal(now.Add(-time.Hour)), "since %v", st.Since)
	assert.Equal(t, 5, st.Asked, "q1 and q2 (asked at t0 and t0+10s) are in the minute of t0+15s")

	st, err = svc.Observation.Stats(local, observe.StatsQuery{Since: time.Hour - 60*time.Second}) // since t0+1m
	require.NoError(t, err)
	assert.True(t, st.Since.Equal(now.Add(-time.Hour+time.Minute)))
	assert.Equal(t, 0, st.Asked, "all five were asked in the minute before")
	assert.Equal(t, 3, st.Answered, "q1 (at t0+1m), q2 and q4")
}

// Windows is what the service reads stats through.
var _ service.StatsWindow = (*observe.Windows)(nil)
