package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const otherToken = "other-secret-0123456789"

// TestDefaultRunIsThePrincipals: hitl ask without --run asks in
// cli-$USER@PRINCIPAL, which no other token can start first.
func TestDefaultRunIsThePrincipals(t *testing.T) {
	m := startMain(t, func(c *config.Config, m *Main) {
		withTokens(c, m)
		c.Tokens = append(c.Tokens, config.Token{Name: "other", Token: otherToken})
	})
	ctx := context.Background()
	agent, other := cliOpts{token: agentToken}, cliOpts{token: otherToken}
	admin := principaltest.As(ctx, "admin:test")

	t.Run("another token cannot take the default run first: exit 9", func(t *testing.T) {
		r := cliWith(t, ctx, m, other, "ask", "Mine?", "--no-wait", "--run", "cli-tester@api:agent")
		assert.Equal(t, exitForbidden, r.code, r.stderr)
		assert.Contains(t, r.stderr, "reserved for api:agent")
		_, err := m.Service.Runs.RunRecord(admin, "cli-tester@api:agent")
		assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "nothing was stored")
	})
	t.Run("each token's hitl ask asks in its own run", func(t *testing.T) {
		for who, o := range map[string]cliOpts{"agent": agent, "other": other} {
			r := cliWith(t, ctx, m, o, "ask", "Which region?", "--no-wait")
			require.Equal(t, exitNeedsInput, r.code, r.stderr)
			qs, err := m.Service.Questions.Questions(admin, hitl.QuestionFilter{RunID: "cli-tester@api:" + who})
			require.NoError(t, err)
			require.Len(t, qs, 1, who)
			assert.Equal(t, "api:"+who, qs[0].Asker)
		}
	})
	t.Run("tokenless, the default run is the local person's", func(t *testing.T) {
		local := startMain(t)
		r := cli(ctx, local, "", "ask", "Which region?", "--no-wait")
		require.Equal(t, exitNeedsInput, r.code, r.stderr)
		page, err := local.Service.Runs.Runs(admin, false, 10, "")
		require.NoError(t, err)
		require.Len(t, page.Runs, 1)
		assert.True(t, strings.HasPrefix(page.Runs[0].ID, "cli-tester@local"), page.Runs[0].ID)
	})
}
