package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOIDCConfig: web.oidc is read from YAML and each mistake is refused
// with the key it is about; one row per rule.
func TestOIDCConfig(t *testing.T) {
	good := func() *config.OIDC {
		return &config.OIDC{Issuer: "https://login.example.com/realms/corp", ClientID: "hitl", ClientSecretFile: "/etc/hitl/oidc",
			AllowedDomains: []string{"example.com"}, GroupsClaim: "groups",
			Roles: config.OIDCRoles{Answer: []string{"@example.com"}, Admin: []string{"group:hitl-admins", "ops@example.com"}}}
	}
	for _, tc := range []struct {
		name  string
		touch func(o *config.OIDC)
		key   string // "": valid
	}{
		{"a complete configuration is valid", func(*config.OIDC) {}, ""},
		{"Slack's issuer with its workspace", func(o *config.OIDC) { o.Issuer, o.SlackTeam = "https://slack.com", "T0HITL" }, ""},
		{"Slack's issuer without the workspace", func(o *config.OIDC) { o.Issuer = "https://slack.com" }, "web.oidc.slack_team"},
		{"a workspace that is not a Slack team id", func(o *config.OIDC) { o.SlackTeam = "hitl-corp" }, "web.oidc.slack_team"},
		{"http on loopback, for tests", func(o *config.OIDC) { o.Issuer = "http://127.0.0.1:5556" }, ""},
		{"no issuer", func(o *config.OIDC) { o.Issuer = "" }, "web.oidc.issuer"},
		{"an http issuer elsewhere", func(o *config.OIDC) { o.Issuer = "http://login.example.com" }, "web.oidc.issuer"},
		{"an issuer with a query", func(o *config.OIDC) { o.Issuer = "https://login.example.com/?x=1" }, "web.oidc.issuer"},
		{"no client id", func(o *config.OIDC) { o.ClientID = "" }, "web.oidc.client_id"},
		{"no client secret file", func(o *config.OIDC) { o.ClientSecretFile = "" }, "web.oidc.client_secret_file"},
		{"a domain that is an address", func(o *config.OIDC) { o.AllowedDomains = []string{"a@example.com"} }, "web.oidc.allowed_domains"},
		{"no role at all: signing in would grant nothing", func(o *config.OIDC) { o.Roles = config.OIDCRoles{} }, "web.oidc.roles"},
		{"a role entry that is none of the three forms", func(o *config.OIDC) { o.Roles.Control = []string{"alice"} }, "web.oidc.roles.control"},
		{"a group without its name", func(o *config.OIDC) { o.Roles.Answer = []string{"group:"} }, "web.oidc.roles.answer"},
		{"groups without the claim that lists them", func(o *config.OIDC) { o.GroupsClaim = "" }, "web.oidc.groups_claim"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := config.Default()
			c.Web.OIDC = good()
			tc.touch(c.Web.OIDC)
			err := c.Validate()
			if tc.key == "" {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, fault.EINVALID, fault.Code(err))
			assert.ErrorContains(t, err, tc.key)
		})
	}
	t.Run("read from YAML; openid is always asked", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "hitl.yaml")
		require.NoError(t, os.WriteFile(path, []byte(`web:
  oidc:
    issuer: https://accounts.google.com
    client_id: hitl.apps.googleusercontent.com
    client_secret_file: /etc/hitl/google
    scopes: [email, profile]
    allowed_domains: [example.com]
    roles:
      answer: ["@example.com"]
      admin: [ops@example.com]
`), 0o600))
		c, err := config.Load(path, func(string) string { return "" })
		require.NoError(t, err)
		require.NotNil(t, c.Web.OIDC)
		assert.Equal(t, "https://accounts.google.com", c.Web.OIDC.Issuer)
		assert.Equal(t, []string{"ops@example.com"}, c.Web.OIDC.Roles.Admin)
		assert.Equal(t, []string{"openid", "email", "profile"}, c.Web.OIDC.AskedScopes())
		assert.Equal(t, config.DefaultOIDCScopes, (config.OIDC{}).AskedScopes())
	})
}
