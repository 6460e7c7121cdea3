package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlack429StormLosesNothing(t *testing.T) {
	e := startSlack(t)
	e.srv.FailNext("chat.postMessage", 3, 429, time.Second)
	var qs []*hitl.Question
	for i := range 3 {
		q, _ := e.ask(t, "storm", hitl.NewQuestion{Question: "Storm question " + string(rune('A'+i)) + "?"})
		qs = append(qs, q)
	}
	for _, q := range qs {
		e.posted(t, testChannel, q)
	}
	var limited, posted int
	for _, c := range e.srv.Calls("chat.postMessage") {
		switch {
		case c.Status == 429:
			limited++
		case c.OK:
			posted++
		}
	}
	assert.Equal(t, 3, limited, "Slack said 429 three times")
	assert.Equal(t, 3, posted, "every question posted exactly once")
	calls := e.srv.Calls("chat.postMessage")
	assert.GreaterOrEqual(t, calls[len(calls)-1].At.Sub(calls[0].At), 3*time.Second-100*time.Millisecond,
		"each retry honoured Retry-After (1 s)")
}

func TestSlackDownAtCreationThenUp(t *testing.T) {
	e := startSlack(t)
	e.srv.SetDown(true)
	start := time.Now()
	q, waiting := e.ask(t, "down", hitl.NewQuestion{Question: "Proceed while Slack is down?", ResponseType: hitl.BooleanResponse})
	assert.Less(t, time.Since(start), 2*time.Second, "creating a question never waits on Slack")
	_, err := e.srv.WaitForCall(e.ctx, "chat.postMessage", func(c slackfake.Call) bool { return c.Status == 503 })
	require.NoError(t, err, "the bot tried while Slack was down")
	e.srv.SetDown(false)
	e.click(t, "U0ALICE", e.posted(t, testChannel, q), blocks.ActionYes)
	assert.Equal(t, true, e.settled(t, waiting).Response.Value)
}

func TestSlackRestartThenClick(t *testing.T) {
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 30*time.Second)
	defer cancel()
	srv := slackfake.New(t, slackfake.FailOnReject())
	sameDB := dbFile(t)

	first := startMainNoCleanup(t, sameDB, withSlack(srv))
	require.NoError(t, srv.WaitConnected(ctx, 1))
	e := &slackEnv{ctx: ctx, m: first, srv: srv, api: client.NewClient(first.URL(), "")}
	q, _ := e.ask(t, "restart", hitl.NewQuestion{Question: "Still there after a restart?", Type: hitl.Approval})
	msg := e.posted(t, testChannel, q)
	require.NoError(t, first.Close())

	second := startMain(t, sameDB, withSlack(srv))
	require.NoError(t, srv.WaitConnected(ctx, 2))
	e.m, e.api = second, client.NewClient(second.URL(), "")
	e.click(t, "U0ALICE", msg, blocks.ActionApprove)
	got, err := second.Service.Questions.Wait(ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
	e.updated(t, msg)
	okPosts := 0
	for _, c := range srv.Calls("chat.postMessage") {
		if c.OK {
			okPosts++
		}
	}
	assert.Equal(t, 1, okPosts, "the restart did not post the question again")
}

func TestSlackRedeliveredEnvelopeAppliedOnce(t *testing.T) {
	e := startSlack(t)
	q, waiting := e.ask(t, "redeliver", hitl.NewQuestion{Question: "Merge?", ResponseType: hitl.BooleanResponse})
	msg := e.posted(t, testChannel, q)
	ack := e.click(t, "U0ALICE", msg, blocks.ActionYes)
	e.settled(t, waiting)
	e.updated(t, msg)
	again, err := e.srv.Redeliver(e.ctx, ack.Envelope, 1)
	require.NoError(t, err, "a redelivery is acked too")
	assert.Equal(t, ack.EnvelopeID, again.EnvelopeID)
	// A probe after the redelivery: once its ephemeral arrives, the
	// redelivery (handled before it) would have produced one too.
	e.click(t, "U0BOB", msg, blocks.ActionNo, slackfake.StaleClick())
	e.ephemeralFor(t, "U0BOB", "Already answered")
	assert.Len(t, e.srv.Calls("chat.postEphemeral"), 1, "the redelivered click was not applied again")
	evs, _, err := e.m.Service.Log.Events(principaltest.As(e.ctx, "admin:test"), 0, 0)
	require.NoError(t, err)
	answered := 0
	for _, ev := range evs {
		if ev.Type == hitl.EventQuestionAnswered && ev.QuestionID == q.ID {
			answered++
		}
	}
	assert.Equal(t, 1, answered)
}

func TestSlackReconnectsAfterDisconnect(t *testing.T) {
	e := startSlack(t)
	e.srv.Disconnect("refresh_requested")
	require.NoError(t, e.srv.WaitConnected(e.ctx, 2))
	q, waiting := e.ask(t, "reconnect", hitl.NewQuestion{Question: "Still listening?", ResponseType: hitl.BooleanResponse})
	e.click(t, "U0ALICE", e.posted(t, testChannel, q), blocks.ActionYes)
	assert.Equal(t, true, e.settled(t, waiting).Response.Value)
}

func TestSlackAppHomeShowsTheQueue(t *testing.T) {
	e := startSlack(t)
	q, _ := e.ask(t, "home", hitl.NewQuestion{Question: "Rotate the staging certificates?", Type: hitl.Approval})
	e.posted(t, testChannel, q)
	_, err := e.srv.SendEvent(e.ctx, e.srv.AppHomeOpened("U0ALICE"))
	require.NoError(t, err)
	_, err = e.srv.WaitForCall(e.ctx, "views.publish", func(c slackfake.Call) bool {
		return strings.Contains(string(c.Body), "Rotate the staging certificates?")
	})
	require.NoError(t, err, "the queue lists the waiting question")
	home, ok := e.srv.HomeView("U0ALICE")
	require.True(t, ok)

	// Answer it right there in App Home.
	blockID, value := findElement(t, home.Blocks, blocks.ActionApprove)
	_, err = e.srv.SendInteractive(e.ctx, e.srv.ViewBlockActions("U0ALICE", home.ID, blocks.ActionApprove, blockID, value))
	require.NoError(t, err)
	got, err := e.m.Service.Questions.Wait(e.ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, hitl.OutcomeApproved, got.Outcome())

	_, err = e.srv.WaitForCall(e.ctx, "views.publish", func(c slackfake.Call) bool {
		body := string(c.Body)
		return !strings.Contains(body, `"action_id":"hitl/approve"`) && strings.Contains(body, "Rotate the staging certificates?")
	})
	require.NoError(t, err, "the tab refreshed: the question moved to recent answers")
}

func TestSlackOutboxResumesAfterRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 30*time.Second)
	defer cancel()
	srv := slackfake.New(t, slackfake.FailOnReject())
	sameDB := dbFile(t)

	srv.SetDown(true)
	first := startMainNoCleanup(t, sameDB, withSlack(srv))
	api := client.NewClient(first.URL(), "")
	q, _, err := api.Create(ctx, "outbox", hitl.NewQuestion{Question: "Queued while Slack was down?", ResponseType: hitl.BooleanResponse})
	require.NoError(t, err)
	_, err = srv.WaitForCall(ctx, "chat.postMessage", func(c slackfake.Call) bool { return c.Status == 503 })
	require.NoError(t, err)
	require.NoError(t, first.Close())

	srv.SetDown(false)
	second := startMain(t, sameDB, withSlack(srv))
	e := &slackEnv{ctx: ctx, m: second, srv: srv, api: client.NewClient(second.URL(), "")}
	e.click(t, "U0ALICE", e.posted(t, testChannel, q), blocks.ActionYes)
	got, err := second.Service.Questions.Wait(ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, true, got.Response.Value)
}
