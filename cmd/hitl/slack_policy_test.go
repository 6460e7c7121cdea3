package main

import (
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startPolicySlack starts the service with a rule that asks two of
// U0ALICE, U0BOB and U0CAROL to approve file deletions under /data; other
// operations follow the default policy (shell asks one person). U0NOBODY
// may not answer.
func startPolicySlack(t *testing.T) *slackEnv {
	t.Helper()
	return slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 30*time.Second, func(c *config.Config, _ *Main) {
		c.Slack.Answerers = []string{"U0ALICE", "U0BOB", "U0CAROL", "U0DAVE"}
		c.Policy.Rules = []config.PolicyRule{{Name: "two eyes on /data", OpType: "file_delete", Resource: "/data/*",
			Effect: "ask", Approvers: []string{"U0ALICE", "U0BOB", "U0CAROL"}, Quorum: 2}}
	})
}

// request asks to carry out op and returns the approval question.
func (e *slackEnv) request(tb testing.TB, op hitl.Operation) (hitl.ApprovalOutcome, <-chan waitResult) {
	tb.Helper()
	out, err := e.api.RequestOperation(e.ctx, hitl.ApprovalRequest{Operation: op, RunID: "ops-1"})
	require.NoError(tb, err)
	ch := make(chan waitResult, 1)
	if out.QuestionID != "" {
		go func() {
			q, err := e.api.Wait(e.ctx, out.QuestionID)
			ch <- waitResult{q, err}
		}()
	}
	return out, ch
}

func TestSlackApprovalPolicies(t *testing.T) {
	e := startPolicySlack(t)
	shell := hitl.Operation{Type: hitl.OpShell, Description: "Clean the build", Resource: "rm -rf /tmp/build", Risk: hitl.RiskHigh}

	t.Run("approve and always allow adds the rule its confirmation names", func(t *testing.T) {
		out, waiting := e.request(t, shell)
		require.Equal(t, hitl.EffectAsk, out.Effect)
		msg := e.posted(t, testChannel, out.Question)
		assert.Contains(t, string(msg.Blocks), "Always allow exactly the shell command `rm -rf /tmp/build` from local")
		e.click(t, "U0DAVE", msg, blocks.ActionApproveAlways)
		got := e.settled(t, waiting)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())

		again, _ := e.request(t, hitl.Operation{Type: hitl.OpShell, Description: "Clean again", Resource: "rm -rf /tmp/build"})
		assert.Equal(t, hitl.EffectAllow, again.Effect, "the same request is now allowed by policy")
		other, _ := e.request(t, hitl.Operation{Type: hitl.OpShell, Description: "Clean another", Resource: "rm -rf /tmp/other"})
		assert.Equal(t, hitl.EffectAsk, other.Effect, "another path is asked: the rule is exactly what the person saw")
		_, err := e.api.Cancel(e.ctx, other.QuestionID, "test done")
		require.NoError(t, err)
	})

	t.Run("always allow is not offered, and refused, where it could not apply", func(t *testing.T) {
		out, waiting := e.request(t, hitl.Operation{Type: hitl.OpShell, Description: "Build and clean", Resource: "make && rm -rf /tmp/x"})
		msg := e.posted(t, testChannel, out.Question)
		assert.NotContains(t, string(msg.Blocks), blocks.ActionApproveAlways, "not offered for a compound")
		assert.Contains(t, string(msg.Blocks), "How the policy decided each part")
		e.click(t, "U0DAVE", msg, blocks.ActionApprove)
		assert.Equal(t, hitl.OutcomeApproved, e.settled(t, waiting).Outcome())
	})

	t.Run("policy lists the learned rule and Revoke removes it", func(t *testing.T) {
		n := len(e.srv.Calls("response_url"))
		assert.Empty(t, e.slash(t, "U0DAVE", "policy"))
		calls, err := e.srv.WaitForCalls(e.ctx, "response_url", n+1)
		require.NoError(t, err)
		assert.Contains(t, string(calls[n].Body), "exactly the shell command `rm -rf /tmp/build` from local")
		var list slackfake.Message
		for _, m := range e.srv.Ephemerals() {
			if strings.Contains(string(m.Blocks), blocks.ActionRevokeRule) {
				list = m
			}
		}
		require.NotEmpty(t, list.TS, "the list is an ephemeral message with buttons")

		e.click(t, "U0NOBODY", list, blocks.ActionRevokeRule)
		e.ephemeralFor(t, "U0NOBODY", "not allowed")
		page, err := e.m.Service.Policies.LearnedRules(auth.WithPrincipal(e.ctx, auth.LocalPrincipal("")), hitl.LearnedRuleFilter{})
		require.NoError(t, err)
		require.Len(t, page.Rules, 1, "a stranger revokes nothing")

		e.click(t, "U0DAVE", list, blocks.ActionRevokeRule)
		e.ephemeralFor(t, "U0DAVE", "Revoked")
		page, err = e.m.Service.Policies.LearnedRules(auth.WithPrincipal(e.ctx, auth.LocalPrincipal("")), hitl.LearnedRuleFilter{})
		require.NoError(t, err)
		assert.Empty(t, page.Rules)
		assert.Contains(t, e.slash(t, "U0DAVE", "policy revoke r_nope"), "no learned rule r_nope")
	})

	t.Run("edit then approve hands the agent the edited input", func(t *testing.T) {
		out, waiting := e.request(t, shell)
		msg := e.posted(t, testChannel, out.Question)
		e.click(t, "U0DAVE", msg, blocks.ActionEdit)
		view := lastModal(t, e, blocks.CallbackEdit)
		assert.Contains(t, string(view.Blocks), `"initial_value":"rm -rf /tmp/build"`)
		ack, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0DAVE", view, map[string]map[string]string{
			blocks.BlockEdited: {blocks.InputActionID: "rm -rf /tmp/build/cache"}}))
		require.NoError(t, err)
		assert.Empty(t, ack.Payload)
		got := e.settled(t, waiting)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
		assert.Equal(t, "rm -rf /tmp/build/cache", got.Response.Edited)
		settled := e.updated(t, msg)
		assert.Contains(t, string(settled.Blocks), "Resource, as the agent asked")
		assert.Contains(t, string(settled.Blocks), "rm -rf /tmp/build/cache")
	})

	t.Run("a quorum of two needs two different approvers", func(t *testing.T) {
		out, waiting := e.request(t, hitl.Operation{Type: hitl.OpFileDelete, Description: "Drop old data", Resource: "/data/2019"})
		require.Equal(t, 2, out.Question.Quorum)
		msg := e.posted(t, testChannel, out.Question)
		assert.NotContains(t, string(msg.Blocks), blocks.ActionEdit, "a quorum decision cannot be edited")

		e.click(t, "U0ALICE", msg, blocks.ActionApprove)
		counted, err := e.srv.WaitForMessage(e.ctx, msg.Channel, func(m slackfake.Message) bool {
			return m.TS == msg.TS && strings.Contains(string(m.Blocks), "1 of 2 approvals*: \\u003c@U0ALICE\\u003e")
		})
		require.NoError(t, err, "the message counts the approval")

		e.click(t, "U0ALICE", counted, blocks.ActionApprove)
		e.ephemeralFor(t, "U0ALICE", "already counted")
		e.click(t, "U0DAVE", counted, blocks.ActionApprove)
		e.ephemeralFor(t, "U0DAVE", "not one of the approvers")
		requirePending(t, e, out.QuestionID)

		e.click(t, "U0BOB", counted, blocks.ActionApprove)
		got := e.settled(t, waiting)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
		assert.Equal(t, "slack:U0BOB", got.RespondedBy)
	})

	t.Run("a multi-select question is answered with checkboxes", func(t *testing.T) {
		q, waiting := e.ask(t, "multi-1", hitl.NewQuestion{Question: "Which regions?", ResponseType: hitl.ChoiceResponse, MultiSelect: true,
			Options: []hitl.Option{{Label: "EU", Value: "eu"}, {Label: "US", Value: "us"}, {Label: "Asia", Value: "asia"}}})
		msg := e.posted(t, testChannel, q)
		e.click(t, "U0DAVE", msg, blocks.ActionAnswer)
		view := lastModal(t, e, blocks.CallbackChoices)
		assert.Contains(t, string(view.Blocks), `"type":"checkboxes"`)
		_, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0DAVE", view, map[string]map[string]string{
			blocks.BlockChoices: {blocks.InputActionID: "0,2"}}))
		require.NoError(t, err)
		got := e.settled(t, waiting)
		assert.Equal(t, "eu, asia", got.Response.String())
		assert.Contains(t, e.updated(t, msg).Text, "Answered")
	})
}
