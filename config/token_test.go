package config_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	secretA = "aaaaaaaaaaaaaaaaaaaa"
	secretB = "bbbbbbbbbbbbbbbbbbbb"
)

func TestTokensWithScopes(t *testing.T) {
	t.Run("HITL_TOKENS takes scopes joined by +, trimmed", func(t *testing.T) {
		c, err := config.Load("", env(map[string]string{"HITL_TOKENS": " ci : " + secretA + " : ask , alice:" + secretB + ":answer + control "}))
		require.NoError(t, err)
		require.NoError(t, c.Validate())
		require.Len(t, c.Tokens, 2)
		ci, al := c.Tokens[0].Principal(), c.Tokens[1].Principal()
		assert.Equal(t, "api:ci", ci.ID)
		assert.Equal(t, []auth.Scope{auth.ScopeAsk}, ci.Scopes)
		assert.Equal(t, "api:alice", al.ID)
		assert.Equal(t, []auth.Scope{auth.ScopeAnswer, auth.ScopeControl}, al.Scopes)
		assert.True(t, al.Has(auth.ScopeAnswer))
		assert.False(t, al.Has(auth.ScopeAsk), "scopes are what was listed")
	})
	t.Run("a token without scopes may only ask", func(t *testing.T) {
		c, err := config.Load("", env(map[string]string{"HITL_TOKENS": "ci:" + secretA}))
		require.NoError(t, err)
		p := c.Tokens[0].Principal()
		assert.True(t, p.Has(auth.ScopeAsk))
		assert.False(t, p.Has(auth.ScopeAnswer))
	})
	t.Run("YAML tokens carry scopes and the Slack user they speak for", func(t *testing.T) {
		c, err := config.Load(writeFile(t, `
tokens:
  - name: alice
    token: `+secretA+`
    scopes: [answer, control]
    slack_user: U0ALICE
  - name: ops
    token: `+secretB+`
    scopes: [admin]
rate_limits:
  token_per_minute: 60
  run_per_minute: 0
allow_default_approve: true
`), env(nil))
		require.NoError(t, err)
		require.NoError(t, c.Validate())
		assert.Equal(t, "U0ALICE", c.Tokens[0].Principal().SlackUser)
		assert.True(t, c.Tokens[1].Principal().Has(auth.ScopeControl), "admin holds every scope")
		assert.Equal(t, config.RateLimits{TokenPerMinute: 60, RunPerMinute: 0, ControlPerMinute: 60, RunsPerMinute: 600, PolicyPerMinute: 600}, c.RateLimits)
		assert.True(t, c.Access().AllowDefaultApprove)
	})
	t.Run("rate limits default to 120 per token and 30 per run", func(t *testing.T) {
		c, err := config.Load("", env(map[string]string{"HITL_RATE_RUN_PER_MINUTE": "0"}))
		require.NoError(t, err)
		assert.Equal(t, config.RateLimits{TokenPerMinute: 120, RunPerMinute: 0, ControlPerMinute: 60, RunsPerMinute: 600, PolicyPerMinute: 600}, c.RateLimits)
		assert.Equal(t, config.DefaultMaxStreams, c.MaxStreams)
		_, err = config.Load("", env(map[string]string{"HITL_RATE_TOKEN_PER_MINUTE": "lots"}))
		assert.ErrorContains(t, err, "HITL_RATE_TOKEN_PER_MINUTE")
	})
	t.Run("flood limits come from the environment and refuse negatives", func(t *testing.T) {
		c, err := config.Load("", env(map[string]string{"HITL_MAX_STREAMS": "4", "HITL_RATE_CONTROL_PER_MINUTE": "6",
			"HITL_RATE_RUNS_PER_MINUTE": "7", "HITL_RATE_POLICY_PER_MINUTE": "0"}))
		require.NoError(t, err)
		assert.Equal(t, 4, c.MaxStreams)
		assert.Equal(t, config.RateLimits{TokenPerMinute: 120, RunPerMinute: 30, ControlPerMinute: 6, RunsPerMinute: 7}, c.RateLimits)
		c.MaxStreams = -1
		assert.ErrorContains(t, c.Validate(), "max_streams")
		_, err = config.Load("", env(map[string]string{"HITL_MAX_STREAMS": "many"}))
		assert.ErrorContains(t, err, "HITL_MAX_STREAMS")
	})
	for name, tc := range map[string]struct {
		tokens string
		want   string
	}{
		"unknown scope":    {"ci:" + secretA + ":ask+deploy", `HITL_TOKENS entry 1 (ci) = "deploy": unknown scope`},
		"empty secret":     {"ci:", "HITL_TOKENS entry 1 (ci): the secret is empty"},
		"short secret":     {"ok:" + secretA + ",ci:short", "HITL_TOKENS entry 2 (ci): the secret must be at least 16 characters"},
		"duplicate name":   {"ci:" + secretA + ",ci:" + secretB, `HITL_TOKENS entry 2 (ci) = "ci": two tokens have this name`},
		"duplicate secret": {"ci:" + secretA + ",cd:" + secretA, "HITL_TOKENS entry 2 (cd): the same secret appears twice"},
		"secret with ':'":  {"ci:" + secretA + ":ask:more", "may not contain ':'"},
	} {
		t.Run(name+" is refused naming the entry", func(t *testing.T) {
			c, err := config.Load("", env(map[string]string{"HITL_TOKENS": tc.tokens}))
			require.NoError(t, err)
			err = c.Validate()
			assert.Equal(t, fault.EINVALID, fault.Code(err))
			assert.ErrorContains(t, err, tc.want)
			assert.NotContains(t, err.Error(), secretA, "secrets are never printed")
		})
	}
}

func TestPolicyConfig(t *testing.T) {
	c, err := config.Load(writeFile(t, `
policy:
  rules:
    - name: two-person-deploys
      op_type: deploy
      resource: "prod/*"
      effect: ask
      approvers: [U0A, U0B]
      quorum: 2
    - name: risky
      risk: [high, critical]
      effect: ask
    - name: reads
      op_type: file_read
      risk: low
      effect: allow
`), env(nil))
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	rules := c.PolicyRules()
	require.Len(t, rules, 3)
	assert.Equal(t, hitl.OpType("deploy"), rules[0].OpType)
	assert.Equal(t, 2, rules[0].Quorum)
	assert.Equal(t, []hitl.Risk{hitl.RiskHigh, hitl.RiskCritical}, rules[1].Risk, "a list of levels")
	assert.Equal(t, []hitl.Risk{hitl.RiskLow}, rules[2].Risk, "one level")

	bad, err := config.Load(writeFile(t, "policy:\n  rules:\n    - name: x\n      effect: sometimes\n"), env(nil))
	require.NoError(t, err)
	assert.ErrorContains(t, bad.Validate(), `config policy: rule 1 (x): effect "sometimes" is invalid`)
}
