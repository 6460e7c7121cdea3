package api

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
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
	for _, run := range []string{"loop-1", "loop-2"} {
		_, err := e.svc.Runs.Checkpoint(auth.WithPrincipal(context.Background(), ci), steer.StateEvent{RunID: run,
			Stack: []steer.StackEntry{{ID: run, Iter: 1, Max: 10}}})
		require.NoError(t, err)
	}
	first := map[string]steer.ControlMessage{} // each token's first RESULT per id
	for _, s := range []struct {
		name, who, id, command string
		cached                 bool
		code                   string
		run, payload           string // default loop-1, {}
		message                string // the RESULT's message holds it
	}{
		{"ops pauses", "ops", "req-x", "pause", false, "", "", "", ""},
		{"ops2 with ops's id: its own request, the run is already paused", "ops2", "req-x", "pause", false, steer.CodeInvalidState, "", "", ""},
		{"ci with ops's id: refused, never ops's success", "ci", "req-x", "cancel", false, steer.CodeForbidden, "", "", ""},
		{"ops retries: its cached RESULT", "ops", "req-x", "pause", true, "", "", "", ""},
		{"ops2 retries: its own cached RESULT", "ops2", "req-x", "pause", true, steer.CodeInvalidState, "", "", ""},
		{"ci is refused a new id", "ci", "req-y", "resume", false, steer.CodeForbidden, "", "", ""},
		{"ops with ci's refused id: carried out", "ops", "req-y", "resume", false, "", "", "", ""},
		// A request id names one request: the same id with another
		// command, run or arguments is refused, naming the first, and
		// never returns the first one's outcome (nothing is carried out).
		{"ops reuses its id for another command: refused", "ops", "req-x", "cancel", false, steer.CodeDuplicate, "", "",
			"request_id req-x was already used at"},
		{"ops reuses its id for another run: refused", "ops", "req-x", "pause", false, steer.CodeDuplicate, "loop-2", "",
			"for pause of run loop-1"},
		{"ops escalates with an id", "ops", "req-z", "escalate", false, "", "", `{"model":"opus"}`, ""},
		{"ops reuses it with another model: refused", "ops", "req-z", "escalate", false, steer.CodeDuplicate, "", `{"model":"haiku"}`, "escalate of run loop-1"},
		{"ops retries the escalation: its cached RESULT", "ops", "req-z", "escalate", true, "", "", `{"model":"opus"}`, ""},
		{"loop-2 was never paused by the reused id", "ops", "req-w", "resume", false, steer.CodeInvalidState, "loop-2", "", ""},
	} {
		t.Run(s.name, func(t *testing.T) {
			run, payload := s.run, s.payload
			if run == "" {
				run = "loop-1"
			}
			if payload == "" {
				payload = "{}"
			}
			r := e.call(t, "POST", "/api/topics/loop:control", `{"schema":0,"type":"REQUEST","request_id":"`+s.id+`","command":"`+s.command+
				`","target":{"run_id":"`+run+`"},"timestamp":"2024-12-28T10:00:00Z","payload":`+payload+`}`, "Authorization", "Bearer tok-"+s.who)
			require.Equal(t, http.StatusOK, r.status, r.raw)
			var body wire.ControlResponse
			require.NoError(t, json.Unmarshal([]byte(r.raw), &body))
			res := body.Messages[len(body.Messages)-1]
			require.Equal(t, steer.MessageResult, res.Type)
			assert.Equal(t, s.code, res.Payload.Code, res.Payload.Message)
			assert.Contains(t, res.Payload.Message, s.message)
			if s.code == steer.CodeDuplicate {
				require.Len(t, body.Messages, 1, "a refused reuse is not received: no ACK")
				return
			}
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

// TestRefusedRequestSeenBySenderOnly: a refused control request's ACK and
// RESULT are its sender's (and admins') to read, not the run's owner's.
func TestRefusedRequestSeenBySenderOnly(t *testing.T) {
	ci := auth.TokenPrincipal("ci", []auth.Scope{auth.ScopeAsk}, "")
	other := auth.TokenPrincipal("other", []auth.Scope{auth.ScopeAsk}, "")
	admin := auth.TokenPrincipal("root", []auth.Scope{auth.ScopeAdmin}, "")
	e := newEnv(t, ServerConfig{Tokens: []Token{{Secret: "tok-ci", Principal: ci}, {Secret: "tok-other", Principal: other}}})
	ctx := context.Background()
	_, err := e.svc.Runs.Checkpoint(auth.WithPrincipal(ctx, ci), steer.StateEvent{RunID: "loop-1", Stack: []steer.StackEntry{{ID: "loop-1", Iter: 1, Max: 10}}})
	require.NoError(t, err)
	r := e.call(t, "POST", "/api/topics/loop:control", `{"schema":0,"type":"REQUEST","request_id":"req-1","command":"cancel",`+
		`"target":{"run_id":"loop-1"},"timestamp":"2024-12-28T10:00:00Z","payload":{}}`, "Authorization", "Bearer tok-other")
	require.Equal(t, http.StatusOK, r.status, r.raw)
	controls := func(p auth.Principal) (n int) {
		evs, _, err := e.svc.Log.Events(auth.WithPrincipal(ctx, p), 0, 100)
		require.NoError(t, err)
		for _, ev := range evs {
			if ev.Type == hitl.EventControl {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 0, controls(ci), "the run's owner reads none of another's refused request")
	assert.Equal(t, 2, controls(other), "its sender reads its ACK and RESULT")
	assert.Equal(t, 2, controls(admin), "so do admins")
}
