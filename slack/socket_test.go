package slack

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/blocks"
	goslack "github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// socketBot is a test bot whose Socket Mode client is never connected:
// envelopes are pushed into its event channel, and each handler's end is
// signalled on done.
func socketBot(t *testing.T, api *fakeAPI, access access.Access) (*testBot, chan string) {
	t.Helper()
	tb := newTestBot(t, api, access, nil)
	tb.sm = socketmode.New(goslack.New("xoxb-test"))
	tb.identity.set("U0BOT", "B0BOT", testTeam)
	done := make(chan string, 8)
	for typ, h := range tb.envelopes {
		tb.envelopes[typ] = func(ctx context.Context, evt socketmode.Event) (any, func(context.Context)) {
			ack, after := h(ctx, evt)
			done <- evt.Request.EnvelopeID
			return ack, after
		}
	}
	ctx, cancel := context.WithCancel(tb.ctx)
	tb.cancel, tb.cancelCalls = cancel, func() {}
	tb.wg.Add(1)
	go func() { defer tb.wg.Done(); tb.consume(ctx) }()
	t.Cleanup(tb.Close)
	return tb, done
}

// testTeam is the workspace the test bot authenticated in.
const testTeam = "T0TEST"

func slash(envelope, user, text string) socketmode.Event {
	return socketmode.Event{Type: socketmode.EventTypeSlashCommand, Request: &socketmode.Request{EnvelopeID: envelope},
		Data: goslack.SlashCommand{Command: "/hitl", UserID: user, Text: text, TeamID: testTeam}}
}

func TestEnvelopesFromAnotherWorkspaceAreRefused(t *testing.T) {
	tb, done := socketBot(t, &fakeAPI{}, access.Access{})
	foreign := slash("foreign", "U0EVE", "help")
	cmd := foreign.Data.(goslack.SlashCommand)
	cmd.TeamID = "T0EVIL"
	foreign.Data = cmd
	unnamed := slash("unnamed", "U0EVE", "help")
	cmd.TeamID = ""
	unnamed.Data = cmd
	tb.sm.Events <- foreign
	tb.sm.Events <- unnamed
	tb.sm.Events <- slash("own", "U0BOB", "help")
	handled := []string{await(t, done, "the envelope of the bot's own workspace")}
	tb.Close() // waits for every handler in flight
	for len(done) > 0 {
		handled = append(handled, <-done)
	}
	assert.Equal(t, []string{"own"}, handled, "envelopes of another workspace, or of none, never reach a handler")
}

func TestEnvelopesRunOnTheirOwn(t *testing.T) {
	lookup := make(chan struct{})
	api := &fakeAPI{GetUserGroupMembers: func(ctx context.Context, _ string) ([]string, error) {
		close(lookup)
		<-ctx.Done() // Slack never answers
		return nil, ctx.Err()
	}}
	tb, done := socketBot(t, api, access.Access{Answerers: []string{"S0OPS"}})
	tb.sm.Events <- slash("slow", "U0ALICE", "pending")
	await(t, lookup, "the group lookup")

	t.Run("a slow envelope does not hold up the next one", func(t *testing.T) {
		tb.sm.Events <- slash("quick", "U0BOB", "help")
		assert.Equal(t, "quick", await(t, done, "the quick envelope"))
	})
	t.Run("close waits for the slow one", func(t *testing.T) {
		tb.Close()
		select {
		case id := <-done:
			assert.Equal(t, "slow", id)
		default:
			t.Fatal("Close returned while a handler was still running")
		}
	})
}

func TestClickRefusals(t *testing.T) {
	tb := newTestBot(t, &fakeAPI{}, access.Access{Answerers: []string{"U0ALICE"}}, nil)
	q := tb.ask(t, agentP, hitl.NewQuestion{Question: "Drop the table?", ResponseType: hitl.BooleanResponse})
	click := func(user string) []note {
		cb := goslack.InteractionCallback{Type: goslack.InteractionTypeBlockActions, User: goslack.User{ID: user}}
		cb.Channel.ID = "C0HITL"
		cb.ActionCallback.BlockActions = []*goslack.BlockAction{{ActionID: blocks.ActionYes, BlockID: "q:" + q.ID}}
		return tb.onBlockActions(tb.ctx, cb)
	}
	t.Run("a stranger is told they are not an answerer", func(t *testing.T) {
		notes := click("U0MALLORY")
		require.Len(t, notes, 1)
		assert.Contains(t, notes[0].text, "not one of the Slack answerers")
	})
	t.Run("an answerer's click is taken silently", func(t *testing.T) {
		assert.Empty(t, click("U0ALICE"))
	})
	t.Run("a late click learns who answered first", func(t *testing.T) {
		notes := click("U0ALICE")
		require.Len(t, notes, 1)
		assert.Contains(t, notes[0].text, "Already answered by <@U0ALICE>")
	})
}
