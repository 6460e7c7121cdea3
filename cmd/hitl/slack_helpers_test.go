package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/agent"
	"github.com/hitlbot/hitl/bot"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/require"
)

const testChannel = "C0HITL"

// slackEnv is the real service wired to a fake Slack.
type slackEnv struct {
	t   testing.TB
	ctx context.Context
	m   *Main
	srv *slackfake.Server
	api *agent.Client
}

// withSlack points m at srv with short pacing and retries.
func withSlack(srv *slackfake.Server, mutate ...func(*config.Slack)) func(*config.Config, *Main) {
	return func(c *config.Config, m *Main) {
		c.Slack.AppToken, c.Slack.BotToken, c.Slack.APIURL, c.Slack.Channel = srv.AppToken(), srv.BotToken(), srv.APIURL(), testChannel
		withSlackSettings(mutate...)(c, m)
		m.SlackTuning = func(bc *bot.Config) {
			bc.PostInterval, bc.RetryMin, bc.RetryMax, bc.HomeRefresh = 5*time.Millisecond, 5*time.Millisecond, 50*time.Millisecond, 5*time.Millisecond
		}
	}
}

// withPostInterval sets the bot's per-channel pacing (after withSlack).
func withPostInterval(d time.Duration) func(*config.Config, *Main) {
	return func(_ *config.Config, m *Main) {
		tune := m.SlackTuning
		m.SlackTuning = func(c *bot.Config) { tune(c); c.PostInterval = d }
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
	return &slackEnv{t: tb, ctx: ctx, m: m, srv: srv, api: agent.NewClient(m.URL(), "")}
}

// ask asks through the HTTP API as an agent would, and waits in the
// background; the returned channel yields the settled question.
func (e *slackEnv) ask(run string, n hitl.NewQuestion) (*hitl.Question, <-chan waitResult) {
	e.t.Helper()
	q, _, err := e.api.Create(e.ctx, run, n)
	require.NoError(e.t, err)
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
func (e *slackEnv) posted(channel string, q *hitl.Question) slackfake.Message {
	e.t.Helper()
	msg, err := e.srv.WaitForMessage(e.ctx, channel, func(m slackfake.Message) bool {
		return m.ThreadTS == "" && strings.Contains(string(m.Blocks), "q:"+q.ID)
	})
	require.NoError(e.t, err, "question %s was not posted in %s", q.ID, channel)
	return msg
}

// click clicks the element with actionID in the message, as user.
func (e *slackEnv) click(user string, msg slackfake.Message, actionID string, opts ...slackfake.ActionOption) slackfake.Ack {
	e.t.Helper()
	return e.choose(user, msg, actionID, "", opts...)
}

// choose clicks the element with actionID, with value (a select's chosen
// option) when the element has none of its own.
func (e *slackEnv) choose(user string, msg slackfake.Message, actionID, chosen string, opts ...slackfake.ActionOption) slackfake.Ack {
	e.t.Helper()
	blockID, value := findElement(e.t, msg.Blocks, actionID)
	if value == "" {
		value = chosen
	}
	ack, err := e.srv.SendInteractive(e.ctx, e.srv.BlockActions(user, msg.Channel, msg.TS, actionID, blockID, value, opts...))
	require.NoError(e.t, err)
	return ack
}

// updated waits until the message was updated in place and no longer has
// inputs, and returns it.
func (e *slackEnv) updated(msg slackfake.Message) slackfake.Message {
	e.t.Helper()
	got, err := e.srv.WaitForMessage(e.ctx, msg.Channel, func(m slackfake.Message) bool {
		return m.TS == msg.TS && m.Updated && !strings.Contains(string(m.Blocks), `"type":"actions"`)
	})
	require.NoError(e.t, err, "message %s was not updated", msg.TS)
	return got
}

// settled waits for the agent's wait to return.
func (e *slackEnv) settled(ch <-chan waitResult) *hitl.Question {
	e.t.Helper()
	select {
	case r := <-ch:
		require.NoError(e.t, r.err)
		return r.q
	case <-e.ctx.Done():
		e.t.Fatal("the agent was not woken")
		return nil
	}
}

// ephemeralFor waits for an ephemeral message to user containing want.
func (e *slackEnv) ephemeralFor(user, want string) slackfake.Message {
	e.t.Helper()
	call, err := e.srv.WaitForCall(e.ctx, "chat.postEphemeral", func(c slackfake.Call) bool {
		return c.Param("user") == user && strings.Contains(c.Param("text"), want)
	})
	require.NoError(e.t, err, "no ephemeral %q for %s; got %v", want, user, e.srv.Ephemerals())
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
