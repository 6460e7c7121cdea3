package config_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hitl.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

func TestLoad(t *testing.T) {
	t.Run("defaults are valid and listen on loopback", func(t *testing.T) {
		c, err := config.Load("", env(nil))
		require.NoError(t, err)
		require.NoError(t, c.Validate())
		assert.Equal(t, "127.0.0.1:7070", c.Listen)
		assert.Equal(t, "./hitl.db", c.DB)
		assert.Equal(t, hitl.DefaultTimeouts(), c.HitlTimeouts())
		assert.False(t, c.Slack.Enabled())
	})
	t.Run("file then environment", func(t *testing.T) {
		p := writeFile(t, `
listen: 127.0.0.1:9000
db: /tmp/x.db
timeouts:
  blocking: 45m
  max: 2h
slack:
  channel: C0123
  admins: [U0ADMIN]
tokens:
  - name: ci
    token: 0123456789abcdef0123
`)
		c, err := config.Load(p, env(map[string]string{"HITL_DB": "/var/lib/hitl.db", "HITL_SLACK_CHANNEL": "C0999"}))
		require.NoError(t, err)
		require.NoError(t, c.Validate())
		assert.Equal(t, "127.0.0.1:9000", c.Listen)
		assert.Equal(t, "/var/lib/hitl.db", c.DB, "environment wins over the file")
		assert.Equal(t, 45*time.Minute, c.HitlTimeouts().Blocking)
		assert.Equal(t, 2*time.Hour, c.HitlTimeouts().Max)
		assert.Equal(t, 15*time.Minute, c.HitlTimeouts().Approval, "unset keys keep defaults")
		assert.Equal(t, "C0999", c.Slack.Channel)
		require.Len(t, c.Tokens, 1)
		assert.Equal(t, "api:ci", c.Tokens[0].Principal().ID)
		assert.Equal(t, []auth.Scope{auth.ScopeAsk}, c.Tokens[0].Principal().Scopes, "no scopes: ask only")
	})
	t.Run("HITL_TOKENS names tokens", func(t *testing.T) {
		c, err := config.Load("", env(map[string]string{"HITL_TOKENS": "ci:aaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbb"}))
		require.NoError(t, err)
		require.Len(t, c.Tokens, 2)
		assert.Equal(t, []string{"ci", "aaaaaaaaaaaaaaaaaaaa"}, []string{c.Tokens[0].Name, c.Tokens[0].Token})
		assert.Equal(t, []string{"agent", "bbbbbbbbbbbbbbbbbbbb"}, []string{c.Tokens[1].Name, c.Tokens[1].Token})
	})
	t.Run("unknown key is named", func(t *testing.T) {
		_, err := config.Load(writeFile(t, "listne: 127.0.0.1:1\n"), env(nil))
		assert.ErrorContains(t, err, "listne")
	})
	t.Run("bad duration is named", func(t *testing.T) {
		_, err := config.Load(writeFile(t, "timeouts:\n  blocking: soon\n"), env(nil))
		assert.ErrorContains(t, err, `"soon" is not a duration`)
	})
	t.Run("missing file is an error", func(t *testing.T) {
		_, err := config.Load("/nonexistent/hitl.yaml", env(nil))
		assert.Equal(t, fault.EINVALID, fault.Code(err))
	})
}

func TestValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*config.Config)
		want   string
	}{
		"public listen without tokens": {func(c *config.Config) { c.Listen = "0.0.0.0:7070" }, `config listen = "0.0.0.0:7070": refusing to listen beyond loopback without tokens`},
		"listen without port":          {func(c *config.Config) { c.Listen = "localhost" }, `config listen = "localhost"`},
		"short token":                  {func(c *config.Config) { c.Tokens = []config.Token{{Name: "a", Token: "short"}} }, "tokens[0] (a)"},
		"token without name":           {func(c *config.Config) { c.Tokens = []config.Token{{Token: "0123456789abcdef0"}} }, "tokens[0] ()"},
		"max below min":                {func(c *config.Config) { c.Timeouts.Max = config.Duration(time.Minute) }, "config timeouts.max = \"1m0s\""},
		"bad schedule":                 {func(c *config.Config) { c.SweepSchedule = "sometimes" }, `config sweep_schedule = "sometimes"`},
		"only one slack token":         {func(c *config.Config) { c.Slack.AppToken = "xapp-1" }, "set both slack.app_token"},
		"bot token prefix":             {func(c *config.Config) { c.Slack.AppToken, c.Slack.BotToken = "xapp-1", "xoxp-1" }, "config slack.bot_token"},
		"bad admin id":                 {func(c *config.Config) { c.Slack.Admins = []string{"bob"} }, `config slack.admins = "bob"`},
		"bad api url":                  {func(c *config.Config) { c.Slack.APIURL = "ftp://x" }, `config slack.api_url = "ftp://x"`},
		"negative session idle time":   {func(c *config.Config) { c.Sessions.IdleAfter = config.Duration(-time.Minute) }, `config sessions.idle_after = "-1m0s"`},
		"session ended before idle":    {func(c *config.Config) { c.Sessions.EndAfter = config.Duration(5 * time.Minute) }, `config sessions.end_after = "5m0s": must be longer than sessions.idle_after (10m0s)`},
	} {
		t.Run(name, func(t *testing.T) {
			c := config.Default()
			tc.mutate(&c)
			err := c.Validate()
			assert.Equal(t, fault.EINVALID, fault.Code(err))
			assert.ErrorContains(t, err, tc.want)
		})
	}
	t.Run("sessions: 0 turns idleness or ending off", func(t *testing.T) {
		c := config.Default()
		c.Sessions = config.Sessions{IdleAfter: 0, EndAfter: config.Duration(time.Minute)}
		assert.NoError(t, c.Validate())
		assert.Equal(t, steer.SessionTimes{EndAfter: time.Minute}, c.Sessions.Times())
	})
	t.Run("public listen with tokens is fine", func(t *testing.T) {
		c := config.Default()
		c.Listen = "0.0.0.0:7070"
		c.Tokens = []config.Token{{Name: "ci", Token: "0123456789abcdef0"}}
		assert.NoError(t, c.Validate())
	})
}
