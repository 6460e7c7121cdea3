package service_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/steer"
)

// TestHoldWhilePaused: a checkpoint of a paused run is held until a
// person resumes or cancels it, and answers the state then; when the wait
// ends first it answers paused, and a running run is not held at all.
func TestHoldWhilePaused(t *testing.T) {
	agentCtx := auth.WithPrincipal(context.Background(), loopAgent)
	held := func(t *testing.T, e *controlEnv, wait context.Context) (chan hitl.Checkpoint, steer.StateEvent) {
		t.Helper()
		e.state(t, "loop-1", 1, "m")
		e.send(t, controller, "req-pause", steer.CommandPause, "loop-1", steer.ControlPayload{})
		ev := steer.StateEvent{RunID: "loop-1", Stack: []steer.StackEntry{{ID: "loop-1", Mode: "issue", Iter: 2, Max: 10, Model: "m"}}}
		cp, err := e.svc.Runs.Checkpoint(agentCtx, ev)
		require.NoError(t, err)
		require.Equal(t, steer.RunPaused, cp.Status)
		out := make(chan hitl.Checkpoint, 1)
		go func() {
			got, err := e.svc.Runs.HoldWhilePaused(agentCtx, wait, ev, cp)
			assert.NoError(t, err)
			out <- got
		}()
		return out, ev
	}
	t.Run("a resume ends the hold with running", func(t *testing.T) {
		e := newControlEnv(t)
		out, _ := held(t, e, agentCtx)
		e.send(t, controller, "req-resume", steer.CommandResume, "loop-1", steer.ControlPayload{})
		assert.Equal(t, steer.RunRunning, (<-out).Status)
	})
	t.Run("a cancel ends the hold with the run ended", func(t *testing.T) {
		e := newControlEnv(t)
		out, _ := held(t, e, agentCtx)
		e.send(t, controller, "req-cancel", steer.CommandCancel, "loop-1", steer.ControlPayload{})
		got := <-out
		assert.NotEqual(t, steer.RunPaused, got.Status, "%+v", got)
	})
	t.Run("the end of the wait answers paused", func(t *testing.T) {
		e := newControlEnv(t)
		wait, cancel := context.WithCancel(agentCtx)
		out, _ := held(t, e, wait)
		cancel()
		assert.Equal(t, steer.RunPaused, (<-out).Status)
	})
	t.Run("a running run is not held", func(t *testing.T) {
		e := newControlEnv(t)
		cp := e.state(t, "loop-1", 1, "m")
		got, err := e.svc.Runs.HoldWhilePaused(agentCtx, agentCtx, steer.StateEvent{RunID: "loop-1"}, cp)
		require.NoError(t, err)
		assert.Equal(t, steer.RunRunning, got.Status)
	})
}
