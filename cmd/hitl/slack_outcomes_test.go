package main

import (
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl/internal/principaltest"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlackTimeoutAndCancelUpdateTheMessage(t *testing.T) {
	clock := clocktest.New(time.Now())
	e := slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 30*time.Second, withClock(clock))
	ctx, m := e.ctx, e.m

	t.Run("timed out with the default used", func(t *testing.T) {
		q, waiting := e.ask(t, "timeout", hitl.NewQuestion{Question: "Which region?", Options: []hitl.Option{{Label: "eu"}, {Label: "us"}},
			DefaultResponse: &hitl.Response{Value: "eu"}})
		msg := e.posted(t, testChannel, q)
		clock.Add(31 * time.Minute)
		_, err := m.Service.Questions.SweepExpired(ctx)
		require.NoError(t, err)
		assert.Equal(t, hitl.OutcomeDefaulted, e.settled(t, waiting).Outcome())
		after := e.updated(t, msg)
		assert.Contains(t, strings.ToLower(string(after.Blocks)), "timed out")
		assert.Contains(t, string(after.Blocks), "eu")
	})
	t.Run("cancelled", func(t *testing.T) {
		q, _ := e.ask(t, "cancel", hitl.NewQuestion{Question: "Keep going?", ResponseType: hitl.BooleanResponse})
		msg := e.posted(t, testChannel, q)
		_, err := e.api.Cancel(ctx, q.ID, "the run finished")
		require.NoError(t, err)
		after := e.updated(t, msg)
		assert.Contains(t, strings.ToLower(string(after.Blocks)), "cancelled")
		assert.Contains(t, string(after.Blocks), "the run finished")
	})
}

func TestSlackUserGroupAnswerers(t *testing.T) {
	srv := slackfake.New(t, slackfake.FailOnReject(), slackfake.WithUserGroup("S0OPS", "U0CAROL"))
	e := slackEnvOn(t, srv, 30*time.Second, withSlackSettings(func(s *config.Slack) { s.Answerers = []string{"S0OPS"} }))

	q, waiting := e.ask(t, "groups", hitl.NewQuestion{Question: "Restart the cluster?", Type: hitl.Approval})
	msg := e.posted(t, testChannel, q)
	e.click(t, "U0MALLORY", msg, blocks.ActionApprove)
	e.ephemeralFor(t, "U0MALLORY", "not allowed")
	e.click(t, "U0CAROL", msg, blocks.ActionApprove)
	assert.Equal(t, "slack:U0CAROL", e.settled(t, waiting).RespondedBy, "a member of the allowed group answered")
}

func TestSlackModals(t *testing.T) {
	e := startSlack(t, func(s *config.Slack) { s.Answerers = []string{"U0ALICE"} })
	t.Run("approve with a message", func(t *testing.T) {
		q, waiting := e.ask(t, "approve-msg", hitl.NewQuestion{Question: "Publish the release notes?", Type: hitl.Approval})
		e.click(t, "U0ALICE", e.posted(t, testChannel, q), blocks.ActionApproveMsg)
		_, err := e.srv.WaitForCall(e.ctx, "views.open", nil)
		require.NoError(t, err)
		view, _ := e.srv.LastView()
		_, err = e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0ALICE", view, map[string]map[string]string{
			blocks.BlockMessage: {blocks.InputActionID: "ship it, but mention the migration"}}))
		require.NoError(t, err)
		got := e.settled(t, waiting)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
		assert.Equal(t, "ship it, but mention the migration", got.Response.Text)
	})
	t.Run("a refused submission keeps the modal open with the reason", func(t *testing.T) {
		q, _ := e.ask(t, "modal-refused", hitl.NewQuestion{Question: "Codename?"})
		opened := len(e.srv.Calls("views.open"))
		e.click(t, "U0ALICE", e.posted(t, testChannel, q), blocks.ActionAnswer)
		_, err := e.srv.WaitForCalls(e.ctx, "views.open", opened+1)
		require.NoError(t, err)
		view, _ := e.srv.LastView()
		// Someone answers from the terminal while Alice types.
		_, err = e.m.Service.Questions.Answer(principaltest.As(e.ctx, "cli:bob"), q.ID, hitl.Response{Value: "Blue Heron"})
		require.NoError(t, err)
		ack, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0ALICE", view, map[string]map[string]string{
			blocks.BlockAnswer: {blocks.InputActionID: "Red Kite"}}))
		require.NoError(t, err)
		assert.Contains(t, string(ack.Payload), `"response_action":"errors"`)
		assert.Contains(t, string(ack.Payload), "Already answered by cli:bob")
	})
}

func TestSlackSlashCommandListsTheQueue(t *testing.T) {
	e := startSlack(t)
	q, _ := e.ask(t, "slash", hitl.NewQuestion{Question: "Bump the Go version?", ResponseType: hitl.BooleanResponse})
	e.posted(t, testChannel, q)
	ack, err := e.srv.SendSlashCommand(e.ctx, e.srv.SlashCommand("U0ALICE", testChannel, "/hitl", "pending"))
	require.NoError(t, err)
	assert.Contains(t, string(ack.Payload), "ephemeral")
	assert.Contains(t, string(ack.Payload), q.ID)
	help, err := e.srv.SendSlashCommand(e.ctx, e.srv.SlashCommand("U0ALICE", testChannel, "/hitl", "dance"))
	require.NoError(t, err)
	assert.Contains(t, string(help.Payload), "Unknown command")
}

func TestSlackPacingPerChannel(t *testing.T) {
	const interval = 300 * time.Millisecond
	e := slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 30*time.Second, withPostInterval(interval))
	srv := e.srv
	var busy, quiet []*hitl.Question
	for i := range 3 {
		q, _ := e.ask(t, "pace", hitl.NewQuestion{Question: "Busy channel " + string(rune('A'+i)) + "?", Channel: "C0BUSY"})
		busy = append(busy, q)
	}
	q, _ := e.ask(t, "pace", hitl.NewQuestion{Question: "Quiet channel?", Channel: "C0QUIET"})
	quiet = append(quiet, q)
	for _, q := range busy {
		e.posted(t, "C0BUSY", q)
	}
	e.posted(t, "C0QUIET", quiet[0])
	var busyAt []time.Time
	var quietAt time.Time
	for _, c := range srv.Calls("chat.postMessage") {
		switch c.Param("channel") {
		case "C0BUSY":
			busyAt = append(busyAt, c.At)
		case "C0QUIET":
			quietAt = c.At
		}
	}
	require.Len(t, busyAt, 3)
	for i := 1; i < len(busyAt); i++ {
		assert.GreaterOrEqual(t, busyAt[i].Sub(busyAt[i-1]), interval-5*time.Millisecond, "posts to one channel are paced")
	}
	assert.True(t, quietAt.Before(busyAt[2]), "another channel does not wait behind a busy one")
}
