package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func minutes(m float64) *float64 { return &m }

// runDue is the contract of DueQuestions, and of the sweep that reads it.
func runDue(t *testing.T, newEnv func(*testing.T) *env) {
	t.Run("due questions come earliest first, pending only, up to the limit", func(t *testing.T) { testDueOrder(t, newEnv(t)) })
	t.Run("the sweep times out due questions and leaves the rest", func(t *testing.T) { testSweep(t, newEnv(t)) })
}

func testDueOrder(t *testing.T, e *env) {
	ctx := context.Background()
	start := e.clock.Now()
	q30 := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(30)})
	q10 := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(10)})
	q20 := e.ask(t, "run-2", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(20)})
	q15 := e.ask(t, "run-2", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(15)})
	q60 := e.ask(t, "run-2", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(60)})
	e.ask(t, "run-3", hitl.NewQuestion{Question: "FYI", Type: hitl.NonBlocking, DefaultResponse: &hitl.Response{Value: "ok"}})
	e.answer(t, q20.ID, "done")
	_, err := e.svc.Questions.Cancel(as(agent), q15.ID, "not needed")
	require.NoError(t, err)

	due := func(now time.Time, limit int) []string {
		t.Helper()
		got, err := e.store.DueQuestions(ctx, now, limit)
		require.NoError(t, err)
		return append([]string{}, got...)
	}
	assert.Empty(t, due(start.Add(9*time.Minute), 10), "nothing due yet")
	assert.Equal(t, []string{q10.ID}, due(*q10.TimeoutAt, 10), "a deadline equal to now is due")
	assert.Empty(t, due(q10.TimeoutAt.Add(-time.Nanosecond), 10), "a deadline just after now is not")
	assert.Equal(t, []string{q10.ID, q30.ID}, due(start.Add(45*time.Minute), 10), "earliest first; answered and cancelled ones are not due")
	assert.Equal(t, []string{q10.ID, q30.ID}, due(start.Add(24*time.Hour), 2), "up to the limit")
	assert.Equal(t, []string{q10.ID, q30.ID, q60.ID}, due(start.Add(24*time.Hour), 0), "limit 0: all")
}

func testSweep(t *testing.T, e *env) {
	ctx := context.Background()
	q10 := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(10)})
	q20 := e.ask(t, "run-1", hitl.NewQuestion{Question: "Proceed?", ResponseType: hitl.BooleanResponse, TimeoutMinutes: minutes(20),
		DefaultResponse: &hitl.Response{Value: true}})
	q30 := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(30)})
	e.clock.Add(25 * time.Minute)
	n, err := e.svc.Questions.SweepExpired(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	got, err := e.store.Question(ctx, q10.ID)
	require.NoError(t, err)
	assert.Equal(t, hitl.OutcomeTimedOut, got.Outcome())
	got, err = e.store.Question(ctx, q20.ID)
	require.NoError(t, err)
	assert.Equal(t, hitl.OutcomeDefaulted, got.Outcome())
	assert.Equal(t, true, got.Response.Value)
	page, err := e.store.Questions(ctx, hitl.QuestionFilter{Status: hitl.StatusPending})
	require.NoError(t, err)
	assert.Equal(t, []string{q30.ID}, ids(page.Questions))
	due, err := e.store.DueQuestions(ctx, e.clock.Now(), 0)
	require.NoError(t, err)
	assert.Empty(t, due, "a swept question is no longer due")
}
