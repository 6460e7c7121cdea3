package main

import (
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlackApprovalApprovedByButton(t *testing.T) {
	e := startSlack(t)
	q, waiting := e.ask(t, "deploy-1", hitl.NewQuestion{Question: "Deploy to production?", Type: hitl.Approval,
		Context: &hitl.QuestionContext{Agent: "release-bot", CurrentStep: "deploy"}})
	msg := e.posted(t, testChannel, q)
	assert.Contains(t, msg.Text, "Deploy to production?", "the notification fallback reads well")

	ack := e.click(t, "U0ALICE", msg, blocks.ActionApprove)
	assert.Less(t, ack.Latency.Seconds(), 3.0, "acked within Slack's 3 s")
	stored, err := e.m.DB.Question(e.ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, hitl.StatusAnswered, stored.Status, "the answer is durable before Slack sees the ack")

	got := e.settled(t, waiting)
	assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
	assert.Equal(t, "slack:U0ALICE", got.RespondedBy)
	after := e.updated(t, msg)
	assert.Contains(t, string(after.Blocks), "U0ALICE", "says who approved")
}

func TestSlackDenyWithReasonFromModal(t *testing.T) {
	e := startSlack(t)
	q, waiting := e.ask(t, "deploy-2", hitl.NewQuestion{Question: "Drop the users table?", Type: hitl.Approval})
	msg := e.posted(t, testChannel, q)
	e.click(t, "U0ALICE", msg, blocks.ActionDeny)
	_, err := e.srv.WaitForCall(e.ctx, "views.open", nil)
	require.NoError(t, err)
	view, ok := e.srv.LastView()
	require.True(t, ok)
	ack, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0ALICE", view, map[string]map[string]string{
		blocks.BlockReason: {blocks.InputActionID: "not during the freeze"}}))
	require.NoError(t, err)
	assert.Nil(t, ack.Payload, "a good submission closes the modal")

	got := e.settled(t, waiting)
	assert.Equal(t, hitl.OutcomeDenied, got.Outcome())
	assert.Equal(t, "not during the freeze", got.Response.Text)
	after := e.updated(t, msg)
	assert.Contains(t, string(after.Blocks), "not during the freeze")
}

func TestSlackBooleanAndChoices(t *testing.T) {
	e := startSlack(t)
	t.Run("yes button answers a boolean", func(t *testing.T) {
		q, waiting := e.ask(t, "bool", hitl.NewQuestion{Question: "Run migrations?", ResponseType: hitl.BooleanResponse})
		e.click(t, "U0ALICE", e.posted(t, testChannel, q), blocks.ActionYes)
		assert.Equal(t, true, e.settled(t, waiting).Response.Value)
	})
	t.Run("a few options are buttons", func(t *testing.T) {
		q, waiting := e.ask(t, "few", hitl.NewQuestion{Question: "Which database?", Options: []hitl.Option{{Label: "prod"}, {Label: "staging"}}})
		e.click(t, "U0ALICE", e.posted(t, testChannel, q), blocks.ChooseActionID(1))
		assert.Equal(t, "staging", e.settled(t, waiting).Response.Value)
	})
	t.Run("many options are a select menu", func(t *testing.T) {
		var opts []hitl.Option
		for _, r := range []string{"eu-west-1", "eu-west-2", "us-east-1", "us-east-2", "us-west-1", "us-west-2", "ap-south-1"} {
			opts = append(opts, hitl.Option{Label: r})
		}
		q, waiting := e.ask(t, "many", hitl.NewQuestion{Question: "Region?", Options: opts})
		msg := e.posted(t, testChannel, q)
		e.choose(t, "U0ALICE", msg, blocks.ActionSelect, "4")
		assert.Equal(t, "us-west-1", e.settled(t, waiting).Response.Value)
	})
}

func TestSlackTextAnswers(t *testing.T) {
	e := startSlack(t)
	t.Run("from the modal", func(t *testing.T) {
		q, waiting := e.ask(t, "text-modal", hitl.NewQuestion{Question: "What should the release be called?"})
		e.click(t, "U0ALICE", e.posted(t, testChannel, q), blocks.ActionAnswer)
		_, err := e.srv.WaitForCall(e.ctx, "views.open", nil)
		require.NoError(t, err)
		view, _ := e.srv.LastView()
		_, err = e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0ALICE", view, map[string]map[string]string{
			blocks.BlockAnswer: {blocks.InputActionID: "Velvet Falcon"}}))
		require.NoError(t, err)
		assert.Equal(t, "Velvet Falcon", e.settled(t, waiting).Response.Value)
	})
	t.Run("from a thread reply, marked with a reaction; the bot's own replies are ignored", func(t *testing.T) {
		q, waiting := e.ask(t, "text-thread", hitl.NewQuestion{Question: "Which branch?"})
		msg := e.posted(t, testChannel, q)
		_, err := e.srv.SendEvent(e.ctx, e.srv.BotMessageEvent(slackfake.BotID, testChannel, "I am the bot", msg.TS))
		require.NoError(t, err)
		reply := e.srv.MessageEvent("U0ALICE", testChannel, "release/2.4 &amp; friends", msg.TS)
		_, err = e.srv.SendEvent(e.ctx, reply)
		require.NoError(t, err)
		stored, err := e.m.DB.Question(e.ctx, q.ID)
		require.NoError(t, err)
		assert.Equal(t, hitl.StatusAnswered, stored.Status, "the reply is durable before Slack sees the ack")
		got := e.settled(t, waiting)
		assert.Equal(t, "release/2.4 & friends", got.Response.Value, "the bot's own message was not taken")
		_, err = e.srv.WaitForCall(e.ctx, "reactions.add", func(c slackfake.Call) bool { return c.Param("name") == "white_check_mark" })
		require.NoError(t, err)
	})
	t.Run("a thread reply naming an option answers a choice; chatter does not", func(t *testing.T) {
		q, waiting := e.ask(t, "choice-thread", hitl.NewQuestion{Question: "Where?", Options: []hitl.Option{{Label: "Production", Value: "prod"}, {Label: "Staging", Value: "stg"}}})
		msg := e.posted(t, testChannel, q)
		_, err := e.srv.SendEvent(e.ctx, e.srv.MessageEvent("U0BOB", testChannel, "hmm, not sure", msg.TS))
		require.NoError(t, err)
		_, err = e.srv.SendEvent(e.ctx, e.srv.MessageEvent("U0BOB", testChannel, "staging", msg.TS))
		require.NoError(t, err)
		got := e.settled(t, waiting)
		assert.Equal(t, "stg", got.Response.Value)
		assert.Equal(t, "slack:U0BOB", got.RespondedBy)
	})
}

func TestSlackLateClickSaysWhoAnswered(t *testing.T) {
	e := startSlack(t)
	q, waiting := e.ask(t, "late", hitl.NewQuestion{Question: "Ship?", ResponseType: hitl.BooleanResponse})
	msg := e.posted(t, testChannel, q)
	e.click(t, "U0ALICE", msg, blocks.ActionYes)
	e.settled(t, waiting)
	e.click(t, "U0BOB", msg, blocks.ActionNo, slackfake.StaleClick())
	eph := e.ephemeralFor(t, "U0BOB", "Already answered by")
	assert.Contains(t, eph.Text, "U0ALICE")
	got, err := e.m.Service.Questions.Question(e.ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, true, got.Response.Value, "the late click changed nothing")
}

func TestSlackUnauthorizedClickIsRefused(t *testing.T) {
	e := startSlack(t, func(s *config.Slack) { s.Answerers = []string{"U0ALICE"} })
	q, _ := e.ask(t, "authz", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
	msg := e.posted(t, testChannel, q)
	e.click(t, "U0MALLORY", msg, blocks.ActionApprove)
	e.ephemeralFor(t, "U0MALLORY", "not allowed")
	got, err := e.m.Service.Questions.Question(e.ctx, q.ID)
	require.NoError(t, err)
	assert.True(t, got.Pending(), "nothing was recorded")
}

func TestSlackSensitiveAnswerNeverShown(t *testing.T) {
	e := startSlack(t)
	const secret = "sk-live-very-secret-4242"
	q, waiting := e.ask(t, "secret", hitl.NewQuestion{Question: "Paste the deploy key", Sensitive: true})
	msg := e.posted(t, testChannel, q)
	assert.NotContains(t, string(msg.Blocks), "reply in this thread", "no thread answers for secrets")
	e.click(t, "U0ALICE", msg, blocks.ActionAnswer)
	_, err := e.srv.WaitForCall(e.ctx, "views.open", nil)
	require.NoError(t, err)
	view, _ := e.srv.LastView()
	_, err = e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0ALICE", view, map[string]map[string]string{
		blocks.BlockAnswer: {blocks.InputActionID: secret}}))
	require.NoError(t, err)
	got := e.settled(t, waiting)
	assert.Equal(t, secret, got.Response.Value, "the agent that asked gets it")
	e.updated(t, msg)
	for _, method := range []string{"chat.postMessage", "chat.update", "chat.postEphemeral", "views.publish"} {
		for _, c := range e.srv.Calls(method) {
			assert.NotContains(t, string(c.Body), secret, "%s must never carry the secret", method)
		}
	}
}

func TestSlackAssigneesGetDMs(t *testing.T) {
	e := startSlack(t)
	q, waiting := e.ask(t, "dm", hitl.NewQuestion{Question: "Approve the refund?", Type: hitl.Approval, Assignees: []string{"U0BOB"}})
	call, err := e.srv.WaitForCall(e.ctx, "chat.postMessage", func(c slackfake.Call) bool {
		return c.OK && strings.HasPrefix(c.Param("channel"), "D")
	})
	require.NoError(t, err)
	msg := e.posted(t, call.Param("channel"), q)
	assert.Contains(t, msg.Text, "<@U0BOB>", "the assignee is mentioned so the phone buzzes")

	e.click(t, "U0ALICE", msg, blocks.ActionApprove)
	e.ephemeralFor(t, "U0ALICE", "U0BOB")
	e.click(t, "U0BOB", msg, blocks.ActionApprove)
	assert.Equal(t, "slack:U0BOB", e.settled(t, waiting).RespondedBy)
}

func TestSlackEscapesAgentText(t *testing.T) {
	e := startSlack(t)
	q, _ := e.ask(t, "escape", hitl.NewQuestion{Question: "<!channel> ping <@U0BOSS> and *everyone* <https://evil|click>"})
	msg := e.posted(t, testChannel, q)
	for _, raw := range []string{msg.Text, string(msg.Blocks)} {
		assert.NotContains(t, raw, "<!channel>")
		assert.NotContains(t, raw, "<@U0BOSS>")
		assert.NotContains(t, raw, "<https://evil")
	}
}

func TestSlackLongQuestionFullTextInThread(t *testing.T) {
	e := startSlack(t)
	long := strings.Repeat("The migration touches many tables. ", 300) + "END-MARKER"
	q, _ := e.ask(t, "long", hitl.NewQuestion{Question: long})
	msg := e.posted(t, testChannel, q)
	assert.Contains(t, string(msg.Blocks), "truncated")
	_, err := e.srv.WaitForMessage(e.ctx, testChannel, func(m slackfake.Message) bool {
		return m.ThreadTS == msg.TS && strings.Contains(m.Text, "END-MARKER")
	})
	require.NoError(t, err, "the full text is reachable in the thread")
}
