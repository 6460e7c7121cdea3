package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSessionHookOverHTTP(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, ServerConfig{})
	t.Run("a hook call starts the session run and says what to do", func(t *testing.T) {
		step, err := e.client.Hook(ctx, steer.SessionHook{RunID: "claude-h1", Agent: "Claude Code", Event: steer.HookSessionStart, CWD: "/w"})
		require.NoError(t, err)
		assert.Equal(t, steer.HookProceed, step.Action)
		e.steer(t, steer.CommandRedirect, "claude-h1", steer.ControlPayload{Instruction: "fix the test"})
		step, err = e.client.Hook(ctx, steer.SessionHook{RunID: "claude-h1", Agent: "Claude Code", Event: steer.HookPostToolUse})
		require.NoError(t, err)
		assert.Equal(t, steer.HookInstruct, step.Action)
		assert.Equal(t, "fix the test", step.Instruction)
	})
	t.Run("bad input is a 400 with a code, never half-written", func(t *testing.T) {
		r := e.call(t, http.MethodPost, "/api/runs/claude-h2/hook", `{"agent":"Claude Code","event":"Notification"}`)
		requireError(t, r, http.StatusBadRequest, "invalid")
		assert.Contains(t, r.body["message"], "is not a session hook event")
		r = e.call(t, http.MethodPost, "/api/runs/claude-h2/hook", `{"runId":"claude-other","agent":"Claude Code","event":"Stop"}`)
		requireError(t, r, http.StatusBadRequest, "invalid")
		r = e.call(t, http.MethodPost, "/api/runs/claude-h2/hook", `{"agent":"Claude Code","event":"Stop","extra":1}`)
		requireError(t, r, http.StatusBadRequest, "invalid")
		_, err := e.svc.Runs.RunRecord(ctx, "claude-h2")
		assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	})
}
