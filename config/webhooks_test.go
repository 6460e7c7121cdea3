package config_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWebhooksConfig(t *testing.T) {
	p := writeFile(t, `
webhooks:
  - name: ci
    url: https://ci.example.com/hitl
    secret_file: /etc/hitl/ci.whsec
    events: [question.answered, run.done]
    runs: "ci-*"
webhooks_allowed_hosts: [agent.example, "*.hooks.example"]
webhooks_allow_http: true
webhooks_callback_secret_file: /etc/hitl/callback.whsec
`)
	c, err := config.Load(p, env(nil))
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	routes, policy := c.HitlWebhooks()
	require.Len(t, routes.Endpoints, 1)
	assert.Equal(t, hitl.WebhookRoute{Name: "ci", URL: "https://ci.example.com/hitl", Runs: "ci-*",
		Events: []hitl.WebhookEvent{hitl.WebhookQuestionAnswered, hitl.WebhookRunDone}}, routes.Endpoints[0])
	assert.Equal(t, webhook.CallbackPolicy{AllowedHosts: []string{"agent.example", "*.hooks.example"}, AllowHTTP: true}, policy)

	ok := config.Webhook{Name: "ci", URL: "https://ci.example.com/", SecretFile: "/s", Events: []string{"run.done"}}
	rows := []struct {
		name string
		edit func(c *config.Config)
		key  string
	}{
		{"a bad name", func(c *config.Config) { ok := ok; ok.Name = "a b"; c.Webhooks.Endpoints = []config.Webhook{ok} }, "webhooks[0].name"},
		{"two endpoints of one name", func(c *config.Config) { c.Webhooks.Endpoints = []config.Webhook{ok, ok} }, "webhooks[1].name"},
		{"not an http(s) URL", func(c *config.Config) { ok := ok; ok.URL = "ftp://x/"; c.Webhooks.Endpoints = []config.Webhook{ok} }, "webhooks[0].url"},
		{"no secret file", func(c *config.Config) { ok := ok; ok.SecretFile = ""; c.Webhooks.Endpoints = []config.Webhook{ok} }, "webhooks[0].secret_file"},
		{"no events", func(c *config.Config) { ok := ok; ok.Events = nil; c.Webhooks.Endpoints = []config.Webhook{ok} }, "webhooks[0].events"},
		{"an unknown event", func(c *config.Config) {
			ok := ok
			ok.Events = []string{"question.asked"}
			c.Webhooks.Endpoints = []config.Webhook{ok}
		}, "webhooks[0].events"},
		{"a bad glob", func(c *config.Config) { ok := ok; ok.Runs = "ci-["; c.Webhooks.Endpoints = []config.Webhook{ok} }, "webhooks[0].runs"},
		{"allowed hosts without a callback secret", func(c *config.Config) { c.Webhooks.AllowedHosts = []string{"agent.example"} }, "webhooks_callback_secret_file"},
	}
	for _, r := range rows {
		t.Run(r.name+" is refused", func(t *testing.T) {
			c := config.Default()
			r.edit(&c)
			err := c.Validate()
			require.Error(t, err)
			assert.Equal(t, fault.EINVALID, fault.Code(err))
			assert.Contains(t, err.Error(), r.key)
		})
	}
	t.Run("a valid endpoint passes", func(t *testing.T) {
		c := config.Default()
		c.Webhooks.Endpoints = []config.Webhook{ok}
		assert.NoError(t, c.Validate())
	})
}
