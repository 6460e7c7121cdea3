package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tokens of the authorization tests: ci may only ask; alice may ask and
// answer, and speaks for Slack user U0ALICE.
const (
	ciSecret    = "ci-secret-0123456789abcdef"
	aliceSecret = "alice-secret-0123456789abcdef"
)

// withTrust configures tokens, Slack answerers (U0ANSWER, and U0ALICE, so
// that only the asker rule can refuse her) and a Slack admin (U0ADMIN).
func withTrust(c *config.Config, _ *Main) {
	c.Tokens = []config.Token{
		{Name: "ci", Token: ciSecret, Scopes: []string{"ask"}},
		{Name: "alice", Token: aliceSecret, Scopes: []string{"ask", "answer"}, SlackUser: "U0ALICE"},
	}
	c.Slack.Answerers = []string{"U0ANSWER", "U0ALICE"}
	c.Slack.Admins = []string{"U0ADMIN"}
}

// startTrustedSlack starts the real service with withTrust against a fake
// Slack; e.api asks as ci.
func startTrustedSlack(t *testing.T) *slackEnv {
	t.Helper()
	e := slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 30*time.Second, withTrust)
	e.api = client.NewClient(e.m.URL(), ciSecret)
	return e
}

// refusal returns the audited refusal of actor on question id, failing the
// test when there is none. The refusal is appended before the answer is
// refused, so before Slack sees the ack.
func refusal(t *testing.T, m *Main, id, actor string) *hitl.Event {
	t.Helper()
	evs, _, err := m.Service.Log.Events(principaltest.As(context.Background(), "admin:t"), 0, 0)
	require.NoError(t, err)
	for _, ev := range evs {
		if ev.Type == hitl.EventRefused && ev.QuestionID == id && ev.Actor == actor {
			return ev
		}
	}
	t.Fatalf("no refused event of %s on %s in the audit log", actor, id)
	return nil
}

// requirePending checks that question id still waits, unanswered.
func requirePending(t *testing.T, e *slackEnv, id string) {
	t.Helper()
	got, err := e.m.Service.Questions.Question(e.ctx, id)
	require.NoError(t, err)
	assert.True(t, got.Pending(), "the question still waits")
	assert.Empty(t, got.RespondedBy, "nothing was recorded")
}

func TestSlackAuthorization(t *testing.T) {
	e := startTrustedSlack(t)

	t.Run("a Slack answerer answers an unassigned question", func(t *testing.T) {
		q, waiting := e.ask(t, "authz-open", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
		e.click(t, "U0ANSWER", e.posted(t, testChannel, q), blocks.ActionApprove)
		got := e.settled(t, waiting)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
		assert.Equal(t, "slack:U0ANSWER", got.RespondedBy)
	})

	assigned, waitingAssigned := e.ask(t, "authz-assigned", hitl.NewQuestion{Question: "Refund the customer?", Type: hitl.Approval,
		Assignees: []string{"U0BOB"}, Channel: testChannel})
	assignedMsg := e.posted(t, testChannel, assigned)

	t.Run("a Slack answerer who is not an assignee is refused with the rule, and the question waits", func(t *testing.T) {
		e.click(t, "U0ANSWER", assignedMsg, blocks.ActionApprove)
		eph := e.ephemeralFor(t, "U0ANSWER", "is assigned to")
		assert.Contains(t, eph.Text, "not allowed to answer this")
		assert.Contains(t, eph.Text, "<@U0BOB>", "names who may answer")
		assert.NotContains(t, eph.Text, "hitl: forbidden", "plain words, not the raw error")
		requirePending(t, e, assigned.ID)
		ev := refusal(t, e.m, assigned.ID, "slack:U0ANSWER")
		assert.Equal(t, auth.ActionAnswer, ev.Action)
		assert.Contains(t, ev.Reason, "is assigned to U0BOB")
	})

	t.Run("a Slack admin answers an assigned question", func(t *testing.T) {
		e.click(t, "U0ADMIN", assignedMsg, blocks.ActionApprove)
		got := e.settled(t, waitingAssigned)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
		assert.Equal(t, "slack:U0ADMIN", got.RespondedBy)
	})

	t.Run("the Slack user a token speaks for may not approve what it asked", func(t *testing.T) {
		alice := client.NewClient(e.m.URL(), aliceSecret)
		q, _, err := alice.Create(e.ctx, "authz-self", hitl.NewQuestion{Question: "Merge my own PR?", Type: hitl.Approval})
		require.NoError(t, err)
		e.click(t, "U0ALICE", e.posted(t, testChannel, q), blocks.ActionApprove)
		eph := e.ephemeralFor(t, "U0ALICE", "may not answer it")
		assert.Contains(t, eph.Text, "a person decides, not the agent that asked")
		requirePending(t, e, q.ID)
		ev := refusal(t, e.m, q.ID, "slack:U0ALICE")
		assert.Equal(t, "api:alice", ev.Asker)
	})

	t.Run("a Slack user who is not an answerer is refused with the rule", func(t *testing.T) {
		q, _ := e.ask(t, "authz-stranger", hitl.NewQuestion{Question: "Rotate the keys?", ResponseType: hitl.BooleanResponse})
		e.click(t, "U0MALLORY", e.posted(t, testChannel, q), blocks.ActionYes)
		e.ephemeralFor(t, "U0MALLORY", "is not one of the Slack answerers")
		requirePending(t, e, q.ID)
		refusal(t, e.m, q.ID, "slack:U0MALLORY")
	})

	t.Run("a thread reply from a non-assignee gets the rule and answers nothing", func(t *testing.T) {
		q, _ := e.ask(t, "authz-thread", hitl.NewQuestion{Question: "Which branch?", Assignees: []string{"U0BOB"}, Channel: testChannel})
		msg := e.posted(t, testChannel, q)
		_, err := e.srv.SendEvent(e.ctx, e.srv.MessageEvent("U0ANSWER", testChannel, "main", msg.TS))
		require.NoError(t, err)
		e.ephemeralFor(t, "U0ANSWER", "is assigned to")
		requirePending(t, e, q.ID)
		refusal(t, e.m, q.ID, "slack:U0ANSWER")
		for _, r := range e.srv.Reactions() {
			assert.NotEqual(t, "white_check_mark", r.Name, "the reply is not marked taken")
		}
	})

	t.Run("a non-assignee gets the rule instead of a form", func(t *testing.T) {
		q, _ := e.ask(t, "authz-form", hitl.NewQuestion{Question: "Release name?", Assignees: []string{"U0BOB"}, Channel: testChannel})
		opened := len(e.srv.OpenedViews())
		e.click(t, "U0ANSWER", e.posted(t, testChannel, q), blocks.ActionAnswer)
		e.ephemeralFor(t, "U0ANSWER", "is assigned to")
		assert.Len(t, e.srv.OpenedViews(), opened, "no modal opened")
		requirePending(t, e, q.ID)
	})
}

func TestSlackRefusedModalStaysOpenWithTheRule(t *testing.T) {
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 30*time.Second)
	defer cancel()
	srv := slackfake.New(t, slackfake.FailOnReject())
	sameDB := dbFile(t)
	answerers := func(ids ...string) func(*config.Config, *Main) {
		return func(c *config.Config, _ *Main) { c.Slack.Answerers = ids }
	}

	// U0ANSWER opens the form while they may answer…
	first := startMainNoCleanup(t, sameDB, withSlack(srv), answerers("U0ANSWER"))
	require.NoError(t, srv.WaitConnected(ctx, 1))
	e := &slackEnv{ctx: ctx, m: first, srv: srv, api: client.NewClient(first.URL(), "")}
	q, _ := e.ask(t, "authz-modal", hitl.NewQuestion{Question: "Release name?"})
	e.click(t, "U0ANSWER", e.posted(t, testChannel, q), blocks.ActionAnswer)
	_, err := srv.WaitForCall(ctx, "views.open", nil)
	require.NoError(t, err)
	view, ok := srv.LastView()
	require.True(t, ok)
	require.NoError(t, first.Close())

	// …and submits it after the configuration took that right away.
	second := startMain(t, sameDB, withSlack(srv), answerers("U0OTHER"))
	require.NoError(t, srv.WaitConnected(ctx, 2))
	ack, err := srv.SendInteractive(ctx, srv.ViewSubmission("U0ANSWER", view, map[string]map[string]string{
		blocks.BlockAnswer: {blocks.InputActionID: "Velvet Falcon"}}))
	require.NoError(t, err)
	var resp struct {
		Action string            `json:"response_action"`
		Errors map[string]string `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(ack.Payload, &resp), "the ack carries the refusal")
	assert.Equal(t, "errors", resp.Action, "the modal stays open")
	msg := resp.Errors[blocks.BlockAnswer]
	assert.Contains(t, msg, "not allowed to answer this")
	assert.Contains(t, msg, "@U0ANSWER is not one of the Slack answerers", "plain text names the rule")
	assert.False(t, strings.Contains(msg, "<@"), "a modal error is plain text")

	got, err := second.Service.Questions.Question(ctx, q.ID)
	require.NoError(t, err)
	assert.True(t, got.Pending(), "nothing was recorded")
	refusal(t, second, q.ID, "slack:U0ANSWER")
}
