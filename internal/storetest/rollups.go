package storetest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/sketch"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RollupBackend is a store that keeps rollups.
type RollupBackend interface {
	hitl.Store
	hitl.RollupStore
}

// RunRollups is the contract of hitl.RollupStore: the rollups a store
// keeps with its writes, and the stats observe computes from them, equal
// to those computed from the questions.
func RunRollups(t *testing.T, open func(t *testing.T) RollupBackend) {
	newEnv := func(t *testing.T) (*env, RollupBackend) {
		st := open(t)
		return envWith(st, service.ServiceConfig{}), st
	}
	t.Run("writes edit the rollups of their hour and minute", func(t *testing.T) { e, st := newEnv(t); testRollupWrites(t, e, st) })
	t.Run("prune drops the rollups of old hours", func(t *testing.T) { e, st := newEnv(t); testRollupPrune(t, e, st) })
	t.Run("stats from rollups equal stats from questions", func(t *testing.T) { e, st := newEnv(t); testRollupStats(t, e, st) })
}

func testRollupWrites(t *testing.T, e *env, st RollupBackend) {
	ctx := context.Background()
	// t0 is 10:00; the clock moves a millisecond before each write.
	q1 := e.ask(t, "run-a", hitl.NewQuestion{Question: "Q?"})
	q2 := e.ask(t, "run-a", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
	e.clock.Add(90 * time.Second)
	e.ask(t, "run-b", hitl.NewQuestion{Question: "Q?"})
	e.clock.Add(time.Hour)
	e.answer(t, q1.ID, "yes") // 11:01:30.004, after 3,690.003 s
	e.clock.Add(time.Second)
	_, err := e.svc.Questions.Cancel(as(agent), q2.ID, "not needed")
	require.NoError(t, err)
	require.NoError(t, st.AppendEvent(ctx, &hitl.Event{Type: hitl.EventQuestionReminded, RunID: "run-b", At: e.clock.Now()}))
	require.NoError(t, st.AppendEvent(ctx, &hitl.Event{Type: hitl.EventQuestionEscalated, RunID: "run-b", At: e.clock.Now()}))
	e.ask(t, "run-a", hitl.NewQuestion{Question: "again?"}) // run-a's last question moves to 11:01

	hours, err := st.Rollups(ctx, time.Hour, t0.Add(-time.Hour), t0.Add(3*time.Hour))
	require.NoError(t, err)
	require.Len(t, hours, 2)
	at10, at11 := hours[0], hours[1]
	assert.Equal(t, time.Hour, at10.Span)
	assert.True(t, at10.Start.Equal(t0), "%v", at10.Start)
	assert.Equal(t, 3, at10.Asked)
	assert.Equal(t, 1, at10.Runs, "run-b's last question is at 10:01; run-a's moved to 11:01")
	assert.Zero(t, at10.Answered+at10.Cancelled)
	assert.True(t, at11.Start.Equal(t0.Add(time.Hour)))
	assert.Equal(t, 1, at11.Asked)
	assert.Equal(t, 1, at11.Runs)
	assert.Equal(t, 1, at11.Answered)
	assert.Equal(t, 1, at11.Cancelled)
	assert.Equal(t, map[hitl.QuestionType]hitl.Tally{hitl.Blocking: {Settled: 1}, hitl.Approval: {Settled: 1}}, at11.ByType)
	assert.InDelta(t, 3690.003, at11.AnswerSeconds, 1e-6)
	assert.Equal(t, uint64(1), at11.AnswerTimes.N)
	assert.Equal(t, 1, at11.Reminders)
	assert.Equal(t, 1, at11.Escalations)

	minutes, err := st.Rollups(ctx, time.Minute, t0, t0.Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, minutes, 2, "10:00 and 10:01")
	assert.Equal(t, 2, minutes[0].Asked)
	assert.Zero(t, minutes[0].Runs)
	assert.Equal(t, 1, minutes[1].Asked)
	assert.Equal(t, 1, minutes[1].Runs)
}

func testRollupPrune(t *testing.T, e *env, st RollupBackend) {
	ctx := context.Background()
	q := e.ask(t, "run-a", hitl.NewQuestion{Question: "Q?"})
	e.answer(t, q.ID, "yes")
	e.clock.Add(3 * time.Hour)
	q = e.ask(t, "run-b", hitl.NewQuestion{Question: "Q?"})
	e.answer(t, q.ID, "yes")
	_, err := st.Prune(ctx, t0.Add(2*time.Hour), 0)
	require.NoError(t, err)
	hours, err := st.Rollups(ctx, time.Hour, t0.Add(-time.Hour), t0.Add(24*time.Hour))
	require.NoError(t, err)
	require.Len(t, hours, 1, "the 10:00 hour went with its questions")
	assert.True(t, hours[0].Start.Equal(t0.Add(3*time.Hour)))
	minutes, err := st.Rollups(ctx, time.Minute, t0.Add(-time.Hour), t0.Add(24*time.Hour))
	require.NoError(t, err)
	assert.Len(t, minutes, 1)

	// run-a's last question time went too: its next question counts it
	// once, in its own hour, and takes nothing from the hour pruned.
	e.ask(t, "run-a", hitl.NewQuestion{Question: "Q?"})
	old, err := st.Rollups(ctx, time.Hour, t0.Add(-time.Hour), t0.Add(2*time.Hour))
	require.NoError(t, err)
	assert.Empty(t, old)
	hours, err = st.Rollups(ctx, time.Hour, t0.Add(3*time.Hour), t0.Add(4*time.Hour))
	require.NoError(t, err)
	require.Len(t, hours, 1)
	assert.Equal(t, 2, hours[0].Runs)
}

// testRollupStats plays a random history of 30 hours (questions asked,
// answered, cancelled and timed out; reminders and escalations) and
// compares, at random times and for random windows, the stats observe
// computes from the rollups with those the service computes from the
// questions over the same window (from the start of since's minute):
// counts and rates equal, the average equal to a thousandth, the
// percentiles within the sketch's relative error.
func testRollupStats(t *testing.T, e *env, st RollupBackend) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(24, 2))
	exact := e.svc
	rolled := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: e.clock, StatsWindow: observe.New(st)})
	local := as(auth.LocalPrincipal(""))
	var pending []string
	types := []hitl.QuestionType{hitl.Blocking, hitl.Approval, hitl.ErrorRecovery}
	compare := func() {
		for range 4 {
			since := time.Duration(1+r.IntN(30*3600)) * time.Second
			if r.IntN(3) == 0 {
				since = time.Duration(r.IntN(30)+1) * time.Hour
			}
			since += time.Duration(r.IntN(1000)) * time.Millisecond
			got, err := rolled.Observation.Stats(local, observe.StatsQuery{Since: since})
			require.NoError(t, err)
			start := e.clock.Now().Add(-since).Truncate(time.Minute)
			require.True(t, got.Since.Equal(start), "the window starts at its minute: %v, want %v", got.Since, start)
			want, err := exact.Observation.Stats(local, observe.StatsQuery{Since: e.clock.Now().Sub(start)})
			require.NoError(t, err)
			msg := fmt.Sprintf("at %v, since %v", e.clock.Now(), since)
			wantP := [2]float64{want.P50TimeToAnswerSeconds, want.P90TimeToAnswerSeconds}
			gotP := [2]float64{got.P50TimeToAnswerSeconds, got.P90TimeToAnswerSeconds}
			for i := range wantP {
				assert.LessOrEqual(t, math.Abs(gotP[i]-wantP[i]), wantP[i]*sketch.RelativeError+0.001, msg)
			}
			assert.InDelta(t, want.AvgTimeToAnswerSeconds, got.AvgTimeToAnswerSeconds, 0.0011, msg)
			want.P50TimeToAnswerSeconds, want.P90TimeToAnswerSeconds, want.AvgTimeToAnswerSeconds = 0, 0, 0
			got.P50TimeToAnswerSeconds, got.P90TimeToAnswerSeconds, got.AvgTimeToAnswerSeconds = 0, 0, 0
			assert.Equal(t, want, got, msg)
		}
	}
	for step := range 3000 {
		e.clock.Add(time.Duration(r.IntN(72_000)) * time.Millisecond) // 36 s on average: 30 hours
		switch k := r.IntN(10); {
		case k < 4 || len(pending) == 0:
			n := hitl.NewQuestion{Question: "Q?", Type: types[r.IntN(len(types))]}
			if r.IntN(4) == 0 {
				m := float64(5 + r.IntN(26)) // within the default bounds (5 min to 24 h): outside them an ask is refused
				n.TimeoutMinutes = &m
			}
			q, _, err := e.svc.Questions.Create(as(agent), fmt.Sprintf("run-%d", r.IntN(40)), n)
			require.NoError(t, err)
			if !q.Pending() {
				break
			}
			pending = append(pending, q.ID)
		case k < 7:
			i := r.IntN(len(pending))
			if _, err := e.svc.Questions.Answer(as(person), pending[i], hitl.Response{Value: "yes"}); err != nil {
				require.Equal(t, fault.ECONFLICT, fault.Code(err), "only a settled question refuses an answer")
			}
			pending = append(pending[:i], pending[i+1:]...)
		case k < 8:
			i := r.IntN(len(pending))
			if _, err := e.svc.Questions.Cancel(as(agent), pending[i], "not needed"); err != nil {
				require.Equal(t, fault.ECONFLICT, fault.Code(err))
			}
			pending = append(pending[:i], pending[i+1:]...)
		case k < 9:
			typ := hitl.EventQuestionReminded
			if r.IntN(3) == 0 {
				typ = hitl.EventQuestionEscalated
			}
			require.NoError(t, st.AppendEvent(ctx, &hitl.Event{Type: typ, RunID: "run-1", At: e.clock.Now()}))
		default:
			_, err := e.svc.Questions.SweepExpired(ctx)
			require.NoError(t, err)
		}
		if step%500 == 499 {
			compare()
		}
	}
	compare()
}
