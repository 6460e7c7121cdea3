package api

import (
	"net/http"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWebhookAPI: the operators' webhook API is for admins; an agent's
// callbackUrl is checked before its question is stored.
func TestWebhookAPI(t *testing.T) {
	var svc *service.Service
	e := newEnvWith(t, ServerConfig{Tokens: []Token{
		{Secret: "tok-admin", Principal: auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeAdmin}, "")},
		{Secret: "tok-agent", Principal: auth.TokenPrincipal("agent", []auth.Scope{auth.ScopeAsk}, "")},
	}}, func(c *service.ServiceConfig) {
		c.Webhooks = &hitl.WebhookRoutes{Endpoints: []hitl.WebhookRoute{{Name: "ci", URL: "https://ci.example/", Events: hitl.WebhookEvents}}}
		c.Callbacks = webhook.CallbackPolicy{AllowedHosts: []string{"agent.example"}}
	})
	svc = e.svc
	e.server.webhooks = svc.Webhooks
	admin, agentTok := []string{"Authorization", "Bearer tok-admin"}, []string{"Authorization", "Bearer tok-agent"}

	r := e.call(t, "POST", "/api/jobs/run-1/questions", `{"question":"Go?","callbackUrl":"https://evil.example/x"}`, agentTok...)
	requireError(t, r, http.StatusBadRequest, fault.EINVALID)
	assert.Contains(t, r.body["message"], "webhooks_allowed_hosts")
	r = e.call(t, "POST", "/api/jobs/run-1/questions", `{"question":"Go?","callbackUrl":"https://agent.example/resume"}`, agentTok...)
	require.Equal(t, http.StatusCreated, r.status, r.raw)
	q := r.body["question"].(map[string]any)
	assert.Equal(t, "https://agent.example/resume", q["callbackUrl"])
	e.answer(t, q["id"].(string), hitl.Response{Value: "yes"})

	for _, path := range []string{"/api/webhooks", "/api/webhooks/deliveries?status=failed"} {
		requireError(t, e.call(t, "GET", path, "", agentTok...), http.StatusForbidden, fault.EFORBIDDEN)
	}
	requireError(t, e.call(t, "POST", "/api/webhooks/deliveries/1/replay", "", agentTok...), http.StatusForbidden, fault.EFORBIDDEN)
	requireError(t, e.call(t, "POST", "/api/webhooks/ci/test", "", agentTok...), http.StatusForbidden, fault.EFORBIDDEN)

	r = e.call(t, "GET", "/api/webhooks/deliveries", "", admin...)
	require.Equal(t, http.StatusOK, r.status, r.raw)
	ds := r.body["deliveries"].([]any)
	require.Len(t, ds, 2, "the endpoint's and the callback's")
	r = e.call(t, "GET", "/api/webhooks/deliveries?status=failed", "", admin...)
	require.Equal(t, http.StatusOK, r.status, r.raw)
	assert.Empty(t, r.body["deliveries"])
	requireError(t, e.call(t, "GET", "/api/webhooks/deliveries?status=lost", "", admin...), http.StatusBadRequest, fault.EINVALID)
	requireError(t, e.call(t, "GET", "/api/webhooks/deliveries?before=x", "", admin...), http.StatusBadRequest, fault.EINVALID)
	requireError(t, e.call(t, "POST", "/api/webhooks/deliveries/999/replay", "", admin...), http.StatusNotFound, fault.ENOTFOUND)
	requireError(t, e.call(t, "POST", "/api/webhooks/deliveries/x/replay", "", admin...), http.StatusBadRequest, fault.EINVALID)
	requireError(t, e.call(t, "POST", "/api/webhooks/ci/test", "", admin...), http.StatusNotFound, fault.ENOTFOUND)
	r = e.call(t, "POST", "/api/webhooks/deliveries/1/replay", "", admin...)
	require.Equal(t, http.StatusCreated, r.status, r.raw)
	assert.Equal(t, "pending", r.body["status"])
	r = e.call(t, "GET", "/api/webhooks", "", admin...)
	require.Equal(t, http.StatusOK, r.status, r.raw)
	assert.Len(t, r.body["endpoints"], 1)
	assert.NotContains(t, r.raw, "secret")
}
