package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPolicyOverHTTP(t *testing.T) {
	ctx := context.Background()
	toks := []Token{
		{Secret: "tok-ci", Principal: auth.TokenPrincipal("ci", nil, "")},
		{Secret: "tok-alice", Principal: auth.TokenPrincipal("alice", []auth.Scope{auth.ScopeAnswer}, "")},
		{Secret: "tok-admin", Principal: auth.TokenPrincipal("admin", []auth.Scope{auth.ScopeAdmin}, "")},
	}
	e := newEnv(t, ServerConfig{Tokens: toks})
	require.NoError(t, e.svc.Policies.LoadPolicy(ctx, nil))
	ci := client.NewClient(e.http.URL, "tok-ci")
	alice := client.NewClient(e.http.URL, "tok-alice")

	t.Run("only admins put the policy; the rule and field are named", func(t *testing.T) {
		r := e.call(t, "PUT", "/api/policy", `{"rules":[{"name":"x","effect":"allow"}]}`, as("ci")...)
		requireError(t, r, http.StatusForbidden, fault.EFORBIDDEN)
		r = e.call(t, "PUT", "/api/policy", `{"rules":[{"name":"x","effect":"sometimes"}]}`, as("admin")...)
		requireError(t, r, http.StatusBadRequest, fault.EINVALID)
		assert.Contains(t, r.body["message"], `rule 1 (x): effect "sometimes" is invalid`)
		r = e.call(t, "PUT", "/api/policy", `{"rules":[{"name":"no-rm-root","opType":"shell","resource":"rm -rf /","effect":"deny"},{"name":"git","opType":"shell","resource":"git status","effect":"allow"}]}`, as("admin")...)
		require.Equal(t, http.StatusOK, r.status, r.raw)
		pol, err := ci.Policy(ctx)
		require.NoError(t, err)
		require.Len(t, pol.Rules, 2)
		assert.Equal(t, hitl.EffectAsk, pol.Default[hitl.OpShell])
	})
	t.Run("allow and deny come back at once", func(t *testing.T) {
		out, err := ci.RequestOperation(ctx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "status", Resource: "git status -s"}})
		require.NoError(t, err)
		assert.Equal(t, hitl.EffectAllow, out.Effect)
		assert.Equal(t, "git", out.Rule)
		res, err := ci.Gate(ctx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "wipe", Resource: "rm -rf /"}}, client.Progress{})
		require.NoError(t, err)
		assert.False(t, res.Allowed)
		assert.Contains(t, res.Message, "no-rm-root")
	})
	t.Run("a command line is decided part by part, and each part is shown", func(t *testing.T) {
		out, err := ci.RequestOperation(ctx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: "git status && rm -rf /"}})
		require.NoError(t, err)
		assert.Equal(t, hitl.EffectDeny, out.Effect, "a denied part denies")
		assert.Equal(t, "no-rm-root", out.Rule)
		out, err = ci.RequestOperation(ctx, hitl.ApprovalRequest{RunID: "parts-1", Operation: hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: "git status $(rm -rf ~)"}})
		require.NoError(t, err)
		assert.Equal(t, hitl.EffectAsk, out.Effect, "allowed only when every part is")
		require.Len(t, out.Parts, 2)
		assert.Equal(t, "rm -rf ~", out.Parts[1].Text)
		assert.False(t, out.Learnable)
		r := e.call(t, "POST", "/api/approvals", `{"operation":"x","opType":"shell","resource":"git status > ~/.bashrc"}`, as("ci")...)
		require.Equal(t, http.StatusOK, r.status, r.raw)
		assert.Equal(t, "ask", r.body["decision"])
		d, err := ci.CheckOperation(ctx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: "git status -s"}})
		require.NoError(t, err)
		assert.Equal(t, hitl.EffectAllow, d.Effect)
		_, err = ci.CheckOperation(ctx, hitl.ApprovalRequest{Operation: hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: "ls", Agent: "alice"}})
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "an agent checks only as itself")
	})
	t.Run("learned rules are paged; an agent sees its own", func(t *testing.T) {
		page, err := alice.LearnedRules(ctx, hitl.LearnedRuleFilter{Limit: 10})
		require.NoError(t, err)
		assert.NotNil(t, page.Rules)
		r := e.call(t, "GET", "/api/policy/rules?limit=x", "", as("alice")...)
		requireError(t, r, http.StatusBadRequest, fault.EINVALID)
		_, err = ci.LearnedRules(ctx, hitl.LearnedRuleFilter{})
		require.NoError(t, err)
	})
	t.Run("ask waits for a person, who may edit the command", func(t *testing.T) {
		done := make(chan client.GateResult, 1)
		go func() {
			res, err := ci.Gate(ctx, hitl.ApprovalRequest{RunID: "gate-1", Operation: hitl.Operation{Type: hitl.OpShell, Description: "clean", Resource: "rm -rf build/"}}, client.Progress{})
			assert.NoError(t, err)
			done <- res
		}()
		q := e.pendingWithin(t, "gate-1")
		assert.Equal(t, "rm -rf build/", q.Operation.Resource)
		assert.Equal(t, "api:ci", q.Operation.Agent, "the agent is the token")
		_, err := ci.Answer(ctx, q.ID, hitl.Response{Value: "approve"})
		require.Equal(t, fault.EFORBIDDEN, fault.Code(err), "the agent cannot approve its own operation")
		_, err = alice.Answer(ctx, q.ID, hitl.Response{Value: "approve", Edited: "rm -rf ./build"})
		require.NoError(t, err)
		res := <-done
		assert.True(t, res.Allowed)
		assert.Equal(t, "rm -rf ./build", res.Edited)
		assert.Equal(t, "api:alice", res.By)
	})
}

// pendingWithin waits for the one pending question of run.
func (e *env) pendingWithin(t *testing.T, run string) *hitl.Question {
	t.Helper()
	var q *hitl.Question
	e.untilEvent(t, "a question in "+run, func(ev *hitl.Event) bool {
		if ev.Type == hitl.EventQuestionAsked && ev.RunID == run {
			q = ev.Question
			return true
		}
		return false
	})
	return q
}
