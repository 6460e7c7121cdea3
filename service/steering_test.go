package service_test

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func (e *controlEnv) run(t *testing.T, id string) *hitl.Run {
	t.Helper()
	run, err := e.svc.Runs.RunRecord(auth.WithPrincipal(context.Background(), controller), id)
	require.NoError(t, err)
	return run
}

func TestSteeringDoesNotUndoItself(t *testing.T) {
	t.Run("an escalation outlives the loop's own --model at every later checkpoint", func(t *testing.T) {
		e := newControlEnv(t)
		assert.Equal(t, "haiku", e.state(t, "loop-1", 1, "haiku").Model, "the model the loop starts with")
		e.send(t, controller, "req-esc", steer.CommandEscalate, "loop-1", steer.ControlPayload{Model: "opus"})
		cp := e.state(t, "loop-1", 2, "haiku")
		assert.Equal(t, "opus", cp.Model)
		assert.Equal(t, "opus", cp.NewModel, "handed over once")
		for iter := 3; iter <= 5; iter++ {
			cp = e.state(t, "loop-1", iter, "haiku")
			assert.Equal(t, "opus", cp.Model, "iteration %d", iter)
			assert.Empty(t, cp.NewModel, "iteration %d", iter)
		}
		assert.Equal(t, "opus", e.run(t, "loop-1").Control.Model)
	})
	t.Run("a loop that never was escalated reports the model it uses", func(t *testing.T) {
		e := newControlEnv(t)
		e.state(t, "loop-2", 1, "haiku")
		assert.Equal(t, "sonnet", e.state(t, "loop-2", 2, "sonnet").Model)
	})
	t.Run("a paused loop's report holds it before its next iteration: the run stays where the pause said", func(t *testing.T) {
		e := newControlEnv(t)
		e.state(t, "loop-3", 4, "haiku")
		msg := result(t, e.send(t, controller, "req-pause", steer.CommandPause, "loop-3", steer.ControlPayload{})).Message
		assert.Equal(t, "Loop paused at iteration 4 of 10", msg)
		assert.Equal(t, steer.RunPaused, e.state(t, "loop-3", 5, "haiku").Status)
		assert.Equal(t, "4 of 10", e.run(t, "loop-3").Control.Iteration(), "hitl runs names the iteration the pause named")
		result(t, e.send(t, controller, "req-resume", steer.CommandResume, "loop-3", steer.ControlPayload{}))
		assert.Equal(t, steer.RunRunning, e.state(t, "loop-3", 5, "haiku").Status)
		assert.Equal(t, "5 of 10", e.run(t, "loop-3").Control.Iteration(), "let through, the loop is at its next iteration")
	})
}

func TestRunIteration(t *testing.T) {
	for _, tc := range []struct {
		c    steer.RunControl
		want string
	}{
		{steer.RunControl{}, ""},
		{steer.RunControl{Max: 10}, ""},
		{steer.RunControl{Iter: 3}, "3"},
		{steer.RunControl{Iter: 3, Max: 10}, "3 of 10"},
	} {
		assert.Equal(t, tc.want, tc.c.Iteration(), "%+v", tc.c)
	}
}
