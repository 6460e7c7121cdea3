package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/hitlbot/hitl/slack"
	"github.com/stretchr/testify/require"
)

const testChannel = "C0HITL"

// slackEnv is the real service wired to a fake Slack.
// Its helpers take the testing.TB of the test (or subtest) calling them,
// so that a failure ends that test, never its parent.
type slackEnv struct {
	ctx context.Context
	m   *Main
	srv *slackfake.Server
	api *client.Client
}

// withSlack points m at srv with short pacing and retries.
func withSlack(srv *slackfake.Server, mutate ...func(*config.Slack)) func(*config.Config, *Main) {
	return func(c *config.Config, m *Main) {
		c.Slack.AppToken, c.Slack.BotToken, c.Slack.APIURL, c.Slack.Channel = srv.AppToken(), srv.BotToken(), srv.APIURL(), testChannel
		withSlackSettings(mutate...)(c, m)
		m.SlackTuning = func(bc *slack.Config) {
			bc.PostInterval, bc.RetryMin, bc.RetryMax, bc.HomeRefresh = 5*time.Millisecond, 5*time.Millisecond, 50*time.Millisecond, 5*time.Millisecond
		}
	}
}

// withPostInterval sets the bot's per-channel pacing (after withSlack).
func withPostInterval(d time.Duration) func(*config.Config, *Main) {
	return func(_ *config.Config, m *Main) {
		tune := m.SlackTuning
		m.SlackTuning = func(c *slack.Config) { tune(c); c.PostInterval = d }
	}
}

// withClock gives the service a test clock.
func withClock(c hitl.Clock) func(*config.Config, *Main) {
	return func(_ *config.Config, m *Main) { m.Clock = c }
}

// startSlack starts the real service against a new fake Slack.
func startSlack(t *testing.T, mutate ...func(*config.Slack)) *slackEnv {
	t.Helper()
	return slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 30*time.Second, withSlackSettings(mutate...))
}

// withSlackSettings changes Slack settings (after withSlack).
func withSlackSettings(mutate ...func(*config.Slack)) func(*config.Config, *Main) {
	return func(c *config.Config, _ *Main) {
		for _, f := range mutate {
			f(&c.Slack)
		}
	}
}

// slackEnvOn starts the real service against srv, with mutate applied after
// withSlack, and waits until its socket is connected.
func slackEnvOn(tb testing.TB, srv *slackfake.Server, timeout time.Duration, mutate ...func(*config.Config, *Main)) *slackEnv {
	tb.Helper()
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), timeout)
	tb.Cleanup(cancel)
	m := startMain(tb, append([]func(*config.Config, *Main){withSlack(srv)}, mutate...)...)
	require.NoError(tb, srv.WaitConnected(ctx, 1))
	return &slackEnv{ctx: ctx, m: m, srv: srv, api: client.NewClient(m.URL(), "")}
}

// ask asks through the HTTP API as an agent would, and waits in the
// background; the returned channel yields the settled question.
func (e *slackEnv) ask(tb testing.TB, run string, n hitl.NewQuestion) (*hitl.Question, <-chan waitResult) {
	tb.Helper()
	q, _, err := e.api.Create(e.ctx, run, n)
	require.NoError(tb, err)
	ch := make(chan waitResult, 1)
	go func() {
		got, err := e.api.Wait(e.ctx, q.ID)
		if err == nil && got.Sensitive && got.Status == hitl.StatusAnswered {
			got, err = e.api.Receive(e.ctx, q.ID)
		}
		ch <- waitResult{got, err}
	}()
	return q, ch
}

// posted waits for the question's message in channel.
func (e *slackEnv) posted(tb testing.TB, channel string, q *hitl.Question) slackfake.Message {
	tb.Helper()
	msg, err := e.srv.WaitForMessage(e.ctx, channel, func(m slackfake.Message) bool {
		return m.ThreadTS == "" && strings.Contains(string(m.Blocks), "q:"+q.ID)
	})
	require.NoError(tb, err, "question %s was not posted in %s", q.ID, channel)
	return msg
}

// click clicks the element with actionID in the message, as user.
func (e *slackEnv) click(tb testing.TB, user string, msg slackfake.Message, actionID string, opts ...slackfake.ActionOption) slackfake.Ack {
	tb.Helper()
	return e.choose(tb, user, msg, actionID, "", opts...)
}

// choose clicks the element with actionID, with value (a select's chosen
// option) when the element has none of its own.
func (e *slackEnv) choose(tb testing.TB, user string, msg slackfake.Message, actionID, chosen string, opts ...slackfake.ActionOption) slackfake.Ack {
	tb.Helper()
	blockID, value := findElement(tb, msg.Blocks, actionID)
	if value == "" {
		value = chosen
	}
	ack, err := e.srv.SendInteractive(e.ctx, e.srv.BlockActions(user, msg.Channel, msg.TS, actionID, blockID, value, opts...))
	require.NoError(tb, err)
	return ack
}

// updated waits until the message was updated in place and no longer has
// inputs, and returns it.
func (e *slackEnv) updated(tb testing.TB, msg slackfake.Message) slackfake.Message {
	tb.Helper()
	got, err := e.srv.WaitForMessage(e.ctx, msg.Channel, func(m slackfake.Message) bool {
		return m.TS == msg.TS && m.Updated && !strings.Contains(string(m.Blocks), `"type":"actions"`)
	})
	require.NoError(tb, err, "message %s was not updated", msg.TS)
	return got
}

// settled waits for the agent's wait to return.
func (e *slackEnv) settled(tb testing.TB, ch <-chan waitResult) *hitl.Question {
	tb.Helper()
	select {
	case r := <-ch:
		require.NoError(tb, r.err)
		return r.q
	case <-e.ctx.Done():
		tb.Fatal("the agent was not woken")
		return nil
	}
}

// ephemeralFor waits for an ephemeral message to user containing want.
func (e *slackEnv) ephemeralFor(tb testing.TB, user, want string) slackfake.Message {
	tb.Helper()
	call, err := e.srv.WaitForCall(e.ctx, "chat.postEphemeral", func(c slackfake.Call) bool {
		return c.Param("user") == user && strings.Contains(c.Param("text"), want)
	})
	require.NoError(tb, err, "no ephemeral %q for %s; got %v", want, user, e.srv.Ephemerals())
	return slackfake.Message{Channel: call.Param("channel"), Text: call.Param("text")}
}

// findElement finds the block id and value of the element with actionID.
func findElement(t testing.TB, raw json.RawMessage, actionID string) (blockID, value string) {
	t.Helper()
	var bs []struct {
		BlockID  string `json:"block_id"`
		Elements []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
		} `json:"elements"`
		Accessory *struct {
			ActionID string `json:"action_id"`
		} `json:"accessory"`
	}
	require.NoError(t, json.Unmarshal(raw, &bs))
	for _, b := range bs {
		for _, el := range b.Elements {
			if el.ActionID == actionID {
				return b.BlockID, el.Value
			}
		}
		if b.Accessory != nil && b.Accessory.ActionID == actionID {
			return b.BlockID, ""
		}
	}
	t.Fatalf("no element %s in %s", actionID, raw)
	return "", ""
}

// recorded waits until the bot has recorded question id's Slack message
// in the store (after Slack has it: the fake shows it earlier).
func (e *slackEnv) recorded(tb testing.TB, id string) {
	tb.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		refs, err := e.m.DB.Delivered(e.ctx, id)
		require.NoError(tb, err)
		if len(refs) > 0 {
			return
		}
		select {
		case <-tick.C:
		case <-e.ctx.Done():
			tb.Fatalf("the message of %s was never recorded", id)
		}
	}
}
