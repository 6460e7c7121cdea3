package api

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runWrites counts the run writes made through it.
type runWrites struct {
	hitl.Store
	n atomic.Int32
}

func (w *runWrites) UpdateRun(ctx context.Context, id string, fn func(*hitl.Run) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	w.n.Add(1)
	return w.Store.UpdateRun(ctx, id, fn)
}

func (w *runWrites) SteerRun(ctx context.Context, id string, req hitl.ControlKey, fn func(*hitl.Run, *hitl.ControlRecord) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	w.n.Add(1)
	return w.Store.SteerRun(ctx, id, req, fn)
}

func (w *runWrites) AppendEvent(ctx context.Context, ev *hitl.Event) error {
	w.n.Add(1)
	return w.Store.AppendEvent(ctx, ev)
}

func TestHeldCheckpointWoken(t *testing.T) {
	ctx := context.Background()
	// hold pauses loop-1 and has the loop's checkpoint of iter held by the
	// server; it returns the checkpoint's outcome.
	hold := func(t *testing.T, e *env, loop *client.Run, iter int) chan client.Step {
		t.Helper()
		require.Equal(t, steer.ResultSuccess, e.steer(t, steer.CommandPause, "loop-1", steer.ControlPayload{}).Status)
		done := make(chan client.Step, 1)
		go func() {
			step, err := loop.Checkpoint(ctx, iter)
			assert.NoError(t, err)
			done <- step
		}()
		e.untilEvent(t, "the paused loop reported its iteration", func(ev *hitl.Event) bool {
			return ev.Type == hitl.EventRunState && ev.State.Event == steer.StateRunning && ev.State.Stack[0].Iter == iter
		})
		return done
	}
	returned := func(t *testing.T, done chan client.Step) client.Step {
		t.Helper()
		select {
		case step := <-done:
			return step
		case <-time.After(testDeadline):
			t.Fatal("the held checkpoint did not return")
		}
		return client.Step{}
	}
	setup := func(t *testing.T) (*env, *runWrites, *client.Run) {
		w := &runWrites{Store: memstore.New()}
		e := newEnvOver(t, w, ServerConfig{}, func(*service.ServiceConfig) {})
		e.client = e.client.With(client.WithPollWait(5 * time.Second))
		loop, err := e.client.Run(ctx, "loop-1", client.RunOptions{Max: 10, Model: "haiku"})
		require.NoError(t, err)
		t.Cleanup(loop.Close)
		_, err = loop.Checkpoint(ctx, 1)
		require.NoError(t, err)
		return e, w, loop
	}

	t.Run("a plain resume is the resume's commit alone", func(t *testing.T) {
		e, w, loop := setup(t)
		done := hold(t, e, loop, 2)
		before := w.n.Load()
		require.Equal(t, steer.ResultSuccess, e.steer(t, steer.CommandResume, "loop-1", steer.ControlPayload{}).Status)
		step := returned(t, done)
		assert.Equal(t, "haiku", step.Model)
		assert.Empty(t, step.Instruction)
		assert.EqualValues(t, 1, w.n.Load()-before, "one commit: the resume's; the woken checkpoint wrote nothing")
		run, err := e.svc.Runs.RunRecord(principaltest.As(ctx, "admin:ops"), "loop-1")
		require.NoError(t, err)
		assert.Equal(t, 2, run.Control.Iter, "the loop is at the iteration it reported")
	})
	t.Run("a redirect given during the pause is handed over once", func(t *testing.T) {
		e, w, loop := setup(t)
		done := hold(t, e, loop, 2)
		e.steer(t, steer.CommandRedirect, "loop-1", steer.ControlPayload{Instruction: "Use the v2 API"})
		before := w.n.Load()
		require.Equal(t, steer.ResultSuccess, e.steer(t, steer.CommandResume, "loop-1", steer.ControlPayload{}).Status)
		step := returned(t, done)
		assert.Equal(t, "Use the v2 API", step.Instruction)
		assert.EqualValues(t, 2, w.n.Load()-before, "the resume and the handover")
		step, err := loop.Checkpoint(ctx, 3)
		require.NoError(t, err)
		assert.Empty(t, step.Instruction, "once")
	})
}
