package service_test

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// held has the loop report iteration iter while loop-1 is paused (the
// checkpoint the API holds) and returns the report.
func (e *controlEnv) held(t *testing.T, iter int) steer.StateEvent {
	t.Helper()
	ev := steer.StateEvent{RunID: "loop-1", Stack: []steer.StackEntry{{ID: "loop-1", Mode: "issue", Iter: iter, Max: 10, Model: "haiku"}}}
	cp, err := e.svc.Runs.Checkpoint(auth.WithPrincipal(context.Background(), loopAgent), ev)
	require.NoError(t, err)
	require.Equal(t, steer.RunPaused, cp.Status)
	return ev
}

func (e *controlEnv) woken(t *testing.T, ev steer.StateEvent) hitl.Checkpoint {
	t.Helper()
	cp, err := e.svc.Runs.Woken(auth.WithPrincipal(context.Background(), loopAgent), ev, e.run(t, "loop-1"))
	require.NoError(t, err)
	return cp
}

func TestWokenCheckpoint(t *testing.T) {
	setup := func(t *testing.T) (*controlEnv, *writeCounter, steer.StateEvent) {
		e, w := newCountedEnv(t)
		e.state(t, "loop-1", 4, "haiku")
		e.send(t, controller, "req-pause", steer.CommandPause, "loop-1", steer.ControlPayload{})
		return e, w, e.held(t, 5)
	}
	t.Run("a plain resume: answered from the run it was woken by, nothing written", func(t *testing.T) {
		e, w, ev := setup(t)
		e.send(t, controller, "req-resume", steer.CommandResume, "loop-1", steer.ControlPayload{})
		run := e.run(t, "loop-1")
		assert.Equal(t, "5 of 10", run.Control.Iteration(), "the resume let the held report's iteration in")
		before, seq := w.count(), lastSeq(t, w)
		cp := e.woken(t, ev)
		assert.Equal(t, steer.RunRunning, cp.Status)
		assert.Equal(t, "haiku", cp.Model)
		assert.Empty(t, cp.NewModel)
		assert.Empty(t, cp.Instruction)
		assert.Equal(t, run.Version, cp.Version)
		assert.Equal(t, before, w.count(), "no store write")
		assert.Equal(t, seq, lastSeq(t, w), "no event")
		assert.Equal(t, run, e.run(t, "loop-1"), "the run as the resume left it")
	})
	t.Run("still paused (woken by another change): nothing written, still paused", func(t *testing.T) {
		e, w, ev := setup(t)
		before := w.count()
		cp := e.woken(t, ev)
		assert.Equal(t, steer.RunPaused, cp.Status)
		assert.Equal(t, before, w.count())
	})
	t.Run("still paused with a redirect waiting: nothing handed over until the resume", func(t *testing.T) {
		e, w, ev := setup(t)
		e.send(t, controller, "req-steer", steer.CommandRedirect, "loop-1", steer.ControlPayload{Instruction: "Use the v2 API"})
		before := w.count()
		cp := e.woken(t, ev)
		assert.Equal(t, steer.RunPaused, cp.Status)
		assert.Empty(t, cp.Instruction)
		assert.Equal(t, before, w.count())
	})
	t.Run("a cancel: the loop learns it, nothing written", func(t *testing.T) {
		e, w, ev := setup(t)
		e.send(t, controller, "req-cancel", steer.CommandCancel, "loop-1", steer.ControlPayload{})
		before := w.count()
		cp := e.woken(t, ev)
		assert.Equal(t, steer.RunCancelled, cp.Status)
		assert.Equal(t, steer.ReasonUserCancelled, cp.Reason)
		assert.Equal(t, before, w.count())
	})
	for _, tc := range []struct {
		name    string
		cmd     steer.Command
		payload steer.ControlPayload
		check   func(t *testing.T, cp hitl.Checkpoint)
	}{
		{"a redirect given during the pause is handed over once, by one commit", steer.CommandRedirect,
			steer.ControlPayload{Instruction: "Use the v2 API"}, func(t *testing.T, cp hitl.Checkpoint) {
				assert.Equal(t, "Use the v2 API", cp.Instruction)
			}},
		{"an escalation during the pause is handed over once, by one commit", steer.CommandEscalate,
			steer.ControlPayload{Model: "opus"}, func(t *testing.T, cp hitl.Checkpoint) {
				assert.Equal(t, "opus", cp.NewModel)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, w, ev := setup(t)
			e.send(t, controller, "req-steer", tc.cmd, "loop-1", tc.payload)
			e.send(t, controller, "req-resume", steer.CommandResume, "loop-1", steer.ControlPayload{})
			before := w.count()
			cp := e.woken(t, ev)
			assert.Equal(t, steer.RunRunning, cp.Status)
			tc.check(t, cp)
			assert.Equal(t, 1, w.count()-before, "the handover is committed")
			c := e.run(t, "loop-1").Control
			assert.Empty(t, c.Instruction, "taken off the run")
			assert.Empty(t, c.NewModel)
			again := e.woken(t, ev)
			assert.Empty(t, again.Instruction, "once")
			assert.Empty(t, again.NewModel, "once")
			next := e.state(t, "loop-1", 6, "haiku")
			assert.Empty(t, next.Instruction, "once")
			assert.Empty(t, next.NewModel, "once")
		})
	}
	t.Run("a report that says something new is recorded", func(t *testing.T) {
		e, w, ev := setup(t)
		e.send(t, controller, "req-resume", steer.CommandResume, "loop-1", steer.ControlPayload{})
		ev.Stack[0].Iter = 7 // not what the held report said
		before := w.count()
		cp := e.woken(t, ev)
		assert.Equal(t, steer.RunRunning, cp.Status)
		assert.Equal(t, 1, w.count()-before)
		assert.Equal(t, "7 of 10", e.run(t, "loop-1").Control.Iteration())
	})
	t.Run("only the run's owner is answered", func(t *testing.T) {
		e, _, ev := setup(t)
		e.send(t, controller, "req-resume", steer.CommandResume, "loop-1", steer.ControlPayload{})
		other := auth.TokenPrincipal("other", nil, "")
		_, err := e.svc.Runs.Woken(auth.WithPrincipal(context.Background(), other), ev, e.run(t, "loop-1"))
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
		noAsk := auth.TokenPrincipal("loop", []auth.Scope{auth.ScopeControl}, "") // the owner's name, without the ask scope
		_, err = e.svc.Runs.Woken(auth.WithPrincipal(context.Background(), noAsk), ev, e.run(t, "loop-1"))
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
	})
}
