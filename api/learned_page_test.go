package api

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLearnedRulesPagedOverHTTP: GET /api/policy/rules returns pages of
// the limit asked, whose cursors walk every rule once in id order; a
// person sees every agent's rules (or the agent they name), an agent
// only those taught for it, whatever agent it names.
func TestLearnedRulesPagedOverHTTP(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	toks := []Token{
		{Secret: "tok-ci", Principal: auth.TokenPrincipal("ci", nil, "")},
		{Secret: "tok-alice", Principal: auth.TokenPrincipal("alice", []auth.Scope{auth.ScopeAnswer}, "")},
	}
	e := newEnvOver(t, st, ServerConfig{Tokens: toks}, func(*service.ServiceConfig) {})
	now := e.clock.Now()
	var ciRules, all []string
	for i := range 7 {
		agent := "api:ci"
		if i%3 == 2 {
			agent = "api:other"
		}
		r := &hitl.LearnedRule{ID: fmt.Sprintf("lr_%02d", i), Agent: agent, OpType: hitl.OpShell,
			Resource: fmt.Sprintf("make target%d", i), CreatedBy: "slack:U1", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		require.NoError(t, st.PutLearnedRule(ctx, r))
		all = append(all, r.ID)
		if agent == "api:ci" {
			ciRules = append(ciRules, r.ID)
		}
	}
	walk := func(t *testing.T, c *client.Client, f hitl.LearnedRuleFilter) []string {
		t.Helper()
		var ids []string
		for range 20 {
			page, err := c.LearnedRules(ctx, f)
			require.NoError(t, err)
			require.LessOrEqual(t, len(page.Rules), f.Limit, "a page holds at most the limit")
			for _, r := range page.Rules {
				ids = append(ids, r.ID)
			}
			if page.NextCursor == "" {
				return ids
			}
			require.NotEmpty(t, page.Rules, "an empty page with a cursor")
			f.Cursor = page.NextCursor
		}
		t.Fatal("the cursors never ended")
		return nil
	}
	alice := client.NewClient(e.http.URL, "tok-alice")
	ci := client.NewClient(e.http.URL, "tok-ci")
	assert.Equal(t, all, walk(t, alice, hitl.LearnedRuleFilter{Limit: 2}), "a person pages through every rule once")
	assert.Equal(t, ciRules, walk(t, alice, hitl.LearnedRuleFilter{Agent: "ci", Limit: 2}), "a person names an agent by its token name")
	assert.Equal(t, ciRules, walk(t, ci, hitl.LearnedRuleFilter{Limit: 3}), "an agent sees its own")
	assert.Equal(t, ciRules, walk(t, ci, hitl.LearnedRuleFilter{Agent: "other", Limit: 3}), "an agent naming another still sees only its own")
	r := e.call(t, "GET", "/api/policy/rules?limit=2", "", "Authorization", "Bearer tok-alice")
	require.Equal(t, http.StatusOK, r.status, r.raw)
	assert.Len(t, r.body["rules"], 2)
	assert.NotEmpty(t, r.body["nextCursor"])
}
