package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holdingRuns is the service, telling when a run wait begins.
type holdingRuns struct {
	hitl.RunService
	waiting chan struct{}
}

func (r holdingRuns) WaitRun(ctx context.Context, id string, after uint64) (*hitl.Run, error) {
	r.waiting <- struct{}{}
	return r.RunService.WaitRun(ctx, id, after)
}

// TestHeldHookGoneLetsGo: a hook call held while its session is paused
// waits with GET /api/runs/{id}/hold; when the agent kills the hook
// mid-wait, the run stops showing the call held (issue 14: until now it
// showed "held" until the next hook call).
func TestHeldHookGoneLetsGo(t *testing.T) {
	ctx := context.Background()
	admin := principaltest.As(ctx, "admin:ops")
	e := newEnv(t, ServerConfig{})
	runs := holdingRuns{RunService: e.svc.Runs, waiting: make(chan struct{}, 1)}
	svcs := over(e.w, e.svc)
	svcs.Runs = runs
	srv := NewServer(svcs, ServerConfig{Clock: e.clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	t.Cleanup(srv.Close)
	c := client.NewClient(hs.URL, "")

	_, err := c.Hook(ctx, steer.SessionHook{RunID: "claude-g", Agent: "Claude Code", Event: steer.HookSessionStart})
	require.NoError(t, err)
	e.steer(t, steer.CommandPause, "claude-g", steer.ControlPayload{})
	step, err := c.Hook(ctx, steer.SessionHook{RunID: "claude-g", Agent: "Claude Code", Event: steer.HookPreToolUse})
	require.NoError(t, err)
	require.Equal(t, steer.HookHold, step.Action)

	hook, kill := context.WithCancel(ctx)
	gone := make(chan error, 1)
	go func() {
		_, err := c.HoldRun(hook, "claude-g", step.Version)
		gone <- err
	}()
	recv(t, runs.waiting) // the server holds the call
	run, err := e.svc.Runs.RunRecord(admin, "claude-g")
	require.NoError(t, err)
	require.Equal(t, steer.HookPreToolUse, run.Control.Session.Held, "held while the hook waits")
	kill() // the agent kills the hook
	assert.ErrorIs(t, recv(t, gone), context.Canceled)

	wctx, cancel := context.WithTimeout(admin, 10*time.Second)
	defer cancel()
	run, err = e.svc.Runs.WaitRun(wctx, "claude-g", step.Version)
	require.NoError(t, err, "the server lets go of the call")
	assert.Empty(t, run.Control.Session.Held)
	assert.Equal(t, steer.RunPaused, run.Control.Status, "still paused: the next call holds again")

	t.Run("a hold is asked with its version and a wait", func(t *testing.T) {
		r := callURL(t, http.MethodGet, hs.URL+"/api/runs/claude-g/hold?wait=1s", "")
		requireError(t, r, http.StatusBadRequest, "invalid")
		r = callURL(t, http.MethodGet, hs.URL+"/api/runs/claude-g/hold?after=1", "")
		requireError(t, r, http.StatusBadRequest, "invalid")
	})
}
