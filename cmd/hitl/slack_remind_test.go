package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const escalationChannel = "C0ESC"

var remindT0 = time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

// withReminders reminds blocking questions at 10 and 30 minutes and
// escalates them to U0ESC (and the escalation channel) at 20; only U0ALICE
// and U0BOB answer in Slack.
func withReminders(c *config.Config, _ *Main) {
	c.Reminders = map[string]config.ReminderConfig{"blocking": {
		Every:         []config.Duration{config.Duration(10 * time.Minute), config.Duration(30 * time.Minute)},
		EscalateAfter: config.Duration(20 * time.Minute), EscalateTo: []string{"U0ESC"}, EscalationChannel: escalationChannel}}
	c.Slack.Answerers = []string{"U0ALICE", "U0BOB", "U0CAROL"}
}

// dmPosted waits for question q's message in a DM and returns it.
func (e *slackEnv) dmPosted(tb testing.TB, q *hitl.Question) slackfake.Message {
	tb.Helper()
	call, err := e.srv.WaitForCall(e.ctx, "chat.postMessage", func(c slackfake.Call) bool {
		return c.OK && strings.HasPrefix(c.Param("channel"), "D") && strings.Contains(c.Param("blocks"), "q:"+q.ID)
	})
	require.NoError(tb, err, "question %s was not posted in a DM", q.ID)
	return e.posted(tb, call.Param("channel"), q)
}

// reply waits for the n-th thread reply under msg that contains every
// one of want.
func (e *slackEnv) reply(tb testing.TB, msg slackfake.Message, n int, want ...string) {
	tb.Helper()
	for {
		seen := e.replyTSs(msg, want...)
		if len(seen) >= n {
			return
		}
		_, err := e.srv.WaitForMessage(e.ctx, msg.Channel, func(m slackfake.Message) bool {
			return m.ThreadTS == msg.TS && m.TS != msg.TS && containsAll(m.Text, want) && !seen[m.TS]
		})
		require.NoError(tb, err, "no reply %d under %s containing %q; thread: %v", n, msg.TS, want, e.replies(msg))
	}
}

// replies returns the texts of the thread replies under msg that contain
// every one of want.
func (e *slackEnv) replies(msg slackfake.Message, want ...string) []string {
	var out []string
	for _, m := range e.srv.Messages(msg.Channel) {
		if m.ThreadTS == msg.TS && m.TS != msg.TS && containsAll(m.Text, want) {
			out = append(out, m.Text)
		}
	}
	return out
}

// replyTSs is replies' message timestamps.
func (e *slackEnv) replyTSs(msg slackfake.Message, want ...string) map[string]bool {
	out := map[string]bool{}
	for _, m := range e.srv.Messages(msg.Channel) {
		if m.ThreadTS == msg.TS && m.TS != msg.TS && containsAll(m.Text, want) {
			out[m.TS] = true
		}
	}
	return out
}

// blocksText is a message's blocks as JSON with < and > as they are.
func blocksText(m slackfake.Message) string {
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(m.Blocks))
}

func containsAll(s string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// sweep sends what is due at the clock's time (the background sweeper
// may send it first: either way, once).
func (e *slackEnv) sweep(tb testing.TB) {
	tb.Helper()
	_, err := e.m.Service.Questions.SweepReminders(e.ctx)
	require.NoError(tb, err)
}

// TestSlackReminders: reminders reach the right people at the right times,
// once each, across a restart of the service (the same bbolt file); a
// question answered just before its reminder gets none; escalation adds
// an answerer, names them on the message and posts to the escalation
// channel.
func TestSlackReminders(t *testing.T) {
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 60*time.Second)
	defer cancel()
	srv := slackfake.New(t, slackfake.FailOnReject())
	clock := clocktest.New(remindT0)
	sameDB := dbFile(t)
	first := startMainNoCleanup(t, sameDB, withSlack(srv), withClock(clock), withReminders)
	require.NoError(t, srv.WaitConnected(ctx, 1))
	e := &slackEnv{ctx: ctx, m: first, srv: srv, api: client.NewClient(first.URL(), "")}
	hour := 60.0
	inChannel, _ := e.ask(t, "remind-1", hitl.NewQuestion{Question: "Ship it?", ResponseType: hitl.BooleanResponse,
		Channel: testChannel, Assignees: []string{"U0ALICE"}, TimeoutMinutes: &hour})
	inDM, _ := e.ask(t, "remind-2", hitl.NewQuestion{Question: "Rotate the key?", ResponseType: hitl.BooleanResponse,
		Assignees: []string{"U0BOB"}, TimeoutMinutes: &hour})
	early, _ := e.ask(t, "remind-3", hitl.NewQuestion{Question: "Merge?", ResponseType: hitl.BooleanResponse,
		Channel: testChannel, TimeoutMinutes: &hour})
	channelMsg, dmMsg, earlyMsg := e.posted(t, testChannel, inChannel), e.dmPosted(t, inDM), e.posted(t, testChannel, early)

	clock.Set(remindT0.Add(10*time.Minute - time.Second))
	e.click(t, "U0ALICE", earlyMsg, blocks.ActionYes)
	e.updated(t, earlyMsg)

	clock.Set(remindT0.Add(10*time.Minute + time.Second))
	e.sweep(t)
	e.reply(t, channelMsg, 1, "<@U0ALICE>", "Reminder")
	e.reply(t, dmMsg, 1, "<@U0BOB>", "Reminder")

	e.click(t, "U0ESC", channelMsg, blocks.ActionYes)
	e.ephemeralFor(t, "U0ESC", "not one of")

	// Down while the escalation comes due; it is sent once after the start.
	require.NoError(t, first.Close())
	clock.Set(remindT0.Add(21 * time.Minute))
	second := startMain(t, sameDB, withSlack(srv), withClock(clock), withReminders)
	require.NoError(t, srv.WaitConnected(ctx, 2))
	e.m, e.api = second, client.NewClient(second.URL(), "")
	e.sweep(t)
	e.reply(t, channelMsg, 1, "Escalated", "<@U0ESC>")
	e.reply(t, dmMsg, 1, "Escalated", "<@U0ESC>")
	escalated := e.posted(t, escalationChannel, inChannel)
	e.posted(t, escalationChannel, inDM)
	_, err := srv.WaitForMessage(ctx, testChannel, func(m slackfake.Message) bool {
		return m.TS == channelMsg.TS && strings.Contains(blocksText(m), "Escalated to <@U0ESC>")
	})
	require.NoError(t, err, "the message names who escalation added")
	_, err = srv.SendEvent(ctx, srv.AppHomeOpened("U0ESC"))
	require.NoError(t, err)
	_, err = srv.WaitForCall(ctx, "views.publish", func(c slackfake.Call) bool {
		body := string(c.Body)
		return strings.Contains(body, `"user_id":"U0ESC"`) && strings.Contains(body, "Ship it?") && strings.Contains(body, "Rotate the key?")
	})
	require.NoError(t, err, "App Home lists what was escalated to them")

	e.click(t, "U0ESC", escalated, blocks.ActionYes)
	e.updated(t, escalated)
	e.updated(t, channelMsg)
	got, err := second.Service.Questions.Question(ctx, inChannel.ID)
	require.NoError(t, err)
	assert.Equal(t, "slack:U0ESC", got.RespondedBy, "escalation made U0ESC an answerer")

	clock.Set(remindT0.Add(31 * time.Minute))
	e.sweep(t)
	e.reply(t, dmMsg, 2, "<@U0BOB>", "Reminder")

	t.Run("each once", func(t *testing.T) {
		assert.Len(t, e.replies(dmMsg, "Reminder"), 2)
		assert.Len(t, e.replies(dmMsg, "Escalated"), 1)
		assert.Len(t, e.replies(channelMsg, "Reminder"), 1, "answered before its second reminder")
		assert.Len(t, e.replies(channelMsg, "Escalated"), 1)
		assert.Empty(t, e.replies(earlyMsg), "answered just before its reminder")
		posts := 0
		for _, m := range srv.Messages(escalationChannel) {
			if m.ThreadTS == "" {
				posts++
			}
		}
		assert.Equal(t, 2, posts, "one escalation post per question")
	})
}

// TestSlackReassign: a person hands a question to another from Slack (the
// Reassign… modal), from the CLI and through the API; the new person is
// told, the message says who handed it to whom, and only the new
// assignees may answer.
func TestSlackReassign(t *testing.T) {
	e := startSlack(t, func(s *config.Slack) { s.Answerers = []string{"U0ALICE", "U0BOB", "U0CAROL"} })
	t.Run("from Slack", func(t *testing.T) {
		q, waiting := e.ask(t, "reassign-slack", hitl.NewQuestion{Question: "Ship it?", ResponseType: hitl.BooleanResponse,
			Channel: testChannel, Assignees: []string{"U0ALICE"}})
		msg := e.posted(t, testChannel, q)
		opened := len(e.srv.Calls("views.open"))
		e.click(t, "U0ALICE", msg, blocks.ActionReassign)
		_, err := e.srv.WaitForCalls(e.ctx, "views.open", opened+1)
		require.NoError(t, err)
		view, _ := e.srv.LastView()
		ack, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0ALICE", view, map[string]map[string]string{
			blocks.BlockReassign: {blocks.InputActionID: "U0BOB"}}))
		require.NoError(t, err)
		assert.NotContains(t, string(ack.Payload), "errors", "the modal closes")
		e.reply(t, msg, 1, "<@U0BOB>", "Handed by <@U0ALICE>")
		_, err = e.srv.WaitForMessage(e.ctx, testChannel, func(m slackfake.Message) bool {
			return m.TS == msg.TS && strings.Contains(blocksText(m), "Handed by <@U0ALICE> to <@U0BOB>")
		})
		require.NoError(t, err)

		e.click(t, "U0ALICE", msg, blocks.ActionYes)
		e.ephemeralFor(t, "U0ALICE", "not one of them")
		e.click(t, "U0BOB", msg, blocks.ActionYes)
		assert.Equal(t, "slack:U0BOB", e.settled(t, waiting).RespondedBy)
	})
	t.Run("a refused submission keeps the modal open with the reason", func(t *testing.T) {
		q, _ := e.ask(t, "reassign-refused", hitl.NewQuestion{Question: "Ship it?", ResponseType: hitl.BooleanResponse, Channel: testChannel})
		msg := e.posted(t, testChannel, q)
		opened := len(e.srv.Calls("views.open"))
		e.click(t, "U0ALICE", msg, blocks.ActionReassign)
		_, err := e.srv.WaitForCalls(e.ctx, "views.open", opened+1)
		require.NoError(t, err)
		view, _ := e.srv.LastView()
		_, err = e.m.Service.Questions.Answer(principaltest.As(e.ctx, "admin:test"), q.ID, hitl.Response{Value: true})
		require.NoError(t, err)
		ack, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission("U0ALICE", view, map[string]map[string]string{
			blocks.BlockReassign: {blocks.InputActionID: "U0BOB"}}))
		require.NoError(t, err)
		assert.Contains(t, string(ack.Payload), `"to":"Already answered by api:test`, "the reason, under the picker")
	})
	t.Run("from the CLI, to a DM", func(t *testing.T) {
		q, waiting := e.ask(t, "reassign-cli", hitl.NewQuestion{Question: "Rotate the key?", ResponseType: hitl.BooleanResponse,
			Assignees: []string{"U0BOB"}})
		old := e.dmPosted(t, q)
		r := cli(e.ctx, e.m, "", "reassign", q.ID, "U0CAROL")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "Handed "+q.ID+" (run reassign-cli) to U0CAROL")
		call, err := e.srv.WaitForCall(e.ctx, "chat.postMessage", func(c slackfake.Call) bool {
			return c.OK && strings.HasPrefix(c.Param("channel"), "D") && c.Param("channel") != old.Channel &&
				strings.Contains(c.Param("blocks"), "q:"+q.ID)
		})
		require.NoError(t, err, "the question is posted to the new person's DM")
		assert.Contains(t, call.Param("text"), "<@U0CAROL>")
		_, err = e.srv.WaitForMessage(e.ctx, old.Channel, func(m slackfake.Message) bool {
			return m.TS == old.TS && strings.Contains(blocksText(m), "to <@U0CAROL>")
		})
		require.NoError(t, err, "the old DM says whom it was handed to")
		assert.Empty(t, e.replies(old), "the old assignee is not nudged")

		r = cli(e.ctx, e.m, "", "reassign", q.ID, "bob")
		assert.Equal(t, exitUsage, r.code, r.stderr)
		assert.Contains(t, r.stderr, `"bob" is not a Slack user`)
		e.click(t, "U0CAROL", e.posted(t, call.Param("channel"), q), blocks.ActionYes)
		assert.Equal(t, "slack:U0CAROL", e.settled(t, waiting).RespondedBy)
	})
	t.Run("through the API", func(t *testing.T) {
		q, _ := e.ask(t, "reassign-api", hitl.NewQuestion{Question: "Merge?", ResponseType: hitl.BooleanResponse, Channel: testChannel})
		msg := e.posted(t, testChannel, q)
		got, err := e.api.Reassign(e.ctx, q.ID, []string{"U0CAROL"})
		require.NoError(t, err)
		assert.Equal(t, []string{"U0CAROL"}, got.Assignees)
		e.reply(t, msg, 1, "<@U0CAROL>", "Handed by")
	})
}
