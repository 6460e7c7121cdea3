package main

import (
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A rule whose approver is a user group (S0OPS: U0CAROL) is decided by
// its members, in Slack and over HTTP with a token that speaks for one;
// everybody else is refused.
func TestSlackUserGroupApprovers(t *testing.T) {
	const carolSecret, malSecret = "carol-secret-0123456789abcdef", "mallory-secret-0123456789abcdef"
	srv := slackfake.New(t, slackfake.FailOnReject(), slackfake.WithUserGroup("S0OPS", "U0CAROL"))
	e := slackEnvOn(t, srv, 30*time.Second, func(c *config.Config, _ *Main) {
		c.Tokens = []config.Token{
			{Name: "ci", Token: ciSecret, Scopes: []string{"ask"}},
			{Name: "carol", Token: carolSecret, Scopes: []string{"answer"}, SlackUser: "U0CAROL"},
			{Name: "mallory", Token: malSecret, Scopes: []string{"answer"}, SlackUser: "U0MALLORY"},
		}
		c.Policy.Rules = []config.PolicyRule{{Name: "ops restarts", OpType: "restart", Effect: "ask", Approvers: []string{"S0OPS"}}}
	})
	e.api = client.NewClient(e.m.URL(), ciSecret)
	restart := func(what string) (hitl.ApprovalOutcome, <-chan waitResult) {
		return e.request(t, hitl.Operation{Type: "restart", Description: "Restart " + what, Resource: what})
	}

	t.Run("a member approves in Slack; a non-member is refused", func(t *testing.T) {
		out, waiting := restart("web")
		require.Equal(t, hitl.EffectAsk, out.Effect)
		msg := e.posted(t, testChannel, out.Question)
		e.click(t, "U0MALLORY", msg, blocks.ActionApprove)
		e.ephemeralFor(t, "U0MALLORY", "not one of the approvers")
		requirePending(t, e, out.QuestionID)
		e.click(t, "U0CAROL", msg, blocks.ActionApprove)
		got := e.settled(t, waiting)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
		assert.Equal(t, "slack:U0CAROL", got.RespondedBy)
	})
	t.Run("a member's token approves over HTTP; a non-member's token is refused", func(t *testing.T) {
		out, waiting := restart("api")
		require.Equal(t, hitl.EffectAsk, out.Effect)
		_, err := client.NewClient(e.m.URL(), malSecret).Answer(e.ctx, out.QuestionID, hitl.Response{Value: "approve"})
		require.Equal(t, fault.EFORBIDDEN, fault.Code(err), "%v", err)
		assert.Contains(t, fault.Message(err), "not one of the approvers")
		requirePending(t, e, out.QuestionID)
		_, err = client.NewClient(e.m.URL(), carolSecret).Answer(e.ctx, out.QuestionID, hitl.Response{Value: "approve"})
		require.NoError(t, err)
		got := e.settled(t, waiting)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
		assert.Equal(t, "api:carol", got.RespondedBy)
	})
}
