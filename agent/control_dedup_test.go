package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestControlRequestIDPerToken: over POST /api/topics/loop:control, a
// request id is deduplicated per token. Each step sends a REQUEST as
// who, with id; it gets the cached RESULT alone (cached) or an ACK and a
// RESULT of its own with code ("" success).
func TestControlRequestIDPerToken(t *testing.T) {
	control := []auth.Scope{auth.ScopeControl}
	ci := auth.TokenPrincipal("ci", []auth.Scope{auth.ScopeAsk}, "")
	e := newEnv(t, ServerConfig{Tokens: []Token{
		{Secret: "tok-ci", Principal: ci},
		{Secret: "tok-ops", Principal: auth.TokenPrincipal("ops", control, "")},
		{Secret: "tok-ops2", Principal: auth.TokenPrincipal("ops2", control, "")},
	}})
	_, err := e.svc.Runs.Checkpoint(auth.WithPrincipal(context.Background(), ci), steer.StateEvent{RunID: "loop-1",
		Stack: []steer.StackEntry{{ID: "loop-1", Iter: 1, Max: 10}}})
	require.NoError(t, err)
	first := map[string]steer.ControlMessage{} // each token's first RESULT per id
	for _, s := range []struct {
		name, who, id, command string
		cached                 bool
		code                   string
	}{
		{"ops pauses", "ops", "req-x", "pause", false, ""},
		{"ops2 with ops's id: its own request, the run is already paused", "ops2", "req-x", "pause", false, steer.CodeInvalidState},
		{"ci with ops's id: refused, never ops's success", "ci", "req-x", "cancel", false, steer.CodeForbidden},
		{"ops retries: its cached RESULT", "ops", "req-x", "pause", true, ""},
		{"ops2 retries: its own cached RESULT", "ops2", "req-x", "pause", true, steer.CodeInvalidState},
		{"ci is refused a new id", "ci", "req-y", "resume", false, steer.CodeForbidden},
		{"ops with ci's refused id: carried out", "ops", "req-y", "resume", false, ""},
	} {
		t.Run(s.name, func(t *testing.T) {
			r := e.call(t, "POST", "/api/topics/loop:control", `{"schema":0,"type":"REQUEST","request_id":"`+s.id+`","command":"`+s.command+
				`","target":{"run_id":"loop-1"},"timestamp":"2024-12-28T10:00:00Z","payload":{}}`, "Authorization", "Bearer tok-"+s.who)
			require.Equal(t, http.StatusOK, r.status, r.raw)
			var body controlResponse
			require.NoError(t, json.Unmarshal([]byte(r.raw), &body))
			res := body.Messages[len(body.Messages)-1]
			require.Equal(t, steer.MessageResult, res.Type)
			assert.Equal(t, s.code, res.Payload.Code, res.Payload.Message)
			key := s.who + " " + s.id
			if s.cached {
				require.Len(t, body.Messages, 1, "the cached RESULT alone")
				assert.Equal(t, first[key], res)
				return
			}
			require.Len(t, body.Messages, 2, "a new request: ACK and RESULT")
			first[key] = res
		})
	}
}
