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
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Slack replica is killed (SIGKILL) with a run's first live message and
// an alert in flight: Slack takes both posts, the replica records
// neither. The replica that takes the run and the alert channel over
// finds each message by its metadata and records it instead of posting it
// again: the run keeps one live message, which the survivor edits; the
// alert is posted once.
func TestReplicaTakesOverALiveMessageAndAnAlertInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a replica in a child process")
	}
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 60*time.Second)
	defer cancel()
	url, key := pgtest.DB(t), keyFile(t)
	srv := slackfake.New(t, slackfake.FailOnReject())
	hold := srv.Hold("chat.postMessage")
	child := startChildReplica(t, ctx, url, key, append(childSlackEnv(srv.AppToken(), srv.BotToken(), srv.APIURL(), testChannel),
		"HITL_SLACK_RUNS_CHANNEL="+runsChannel, "HITL_ALERTS_CHANNEL="+alertChannel)...)
	require.NoError(t, srv.WaitConnected(ctx, 1))

	api := client.NewClient(child.url, "")
	_, err := api.Publish(ctx, steer.StateEvent{Schema: steer.StateSchema, Event: steer.StateRunning, RunID: steerRun,
		Stack: []steer.StackEntry{{ID: steerRun, Mode: "issue", Iter: 1, Max: 10, Model: "haiku"}}})
	require.NoError(t, err)
	_, _, err = api.Create(ctx, "run-bad", hitl.NewQuestion{}) // starts creation_errors at the child's next sweep
	require.Equal(t, fault.EINVALID, fault.Code(err))
	require.NoError(t, hold.Arrived(ctx, 2), "both posts reached Slack:\n%s", child.log.String())
	child.kill(t)
	// Slack goes on with the posts whose caller died.
	live, err := srv.WaitForMessage(ctx, runsChannel, func(m slackfake.Message) bool {
		return m.ThreadTS == "" && strings.Contains(m.Text, "Run "+steerRun+":")
	})
	require.NoError(t, err, "Slack took the live message in flight")
	_, err = srv.WaitForMessage(ctx, alertChannel, func(m slackfake.Message) bool {
		return strings.Contains(m.Text, "creation_errors started")
	})
	require.NoError(t, err, "Slack took the alert in flight")
	hold.Release()

	r := startReplica(t, url, key, withSlack(srv), replicaTuning, func(c *config.Config, _ *Main) {
		c.Slack.RunsChannel, c.Alerts.Channel = runsChannel, alertChannel
	})
	untilDrained(t, ctx, r)
	// The survivor brings the run's live message up to date: the message
	// it recorded is the one the dead replica posted.
	msgs, err := r.Service.Runs.Control(ctx, steer.NewRequest("resume-pause", steer.CommandPause, steerRun, time.Now(), steer.ControlPayload{}))
	require.NoError(t, err)
	require.Equal(t, steer.ResultSuccess, msgs[len(msgs)-1].Payload.Status)
	e := &slackEnv{ctx: ctx, m: r, srv: srv}
	paused := e.liveMessage(t, steerRun, has(blocks.ActionRunResume))
	assert.Equal(t, live.TS, paused.TS, "the survivor edits the message the dead replica posted")
	untilDrained(t, ctx, r)

	livePosts, alertPosts := 0, 0
	for _, c := range srv.Calls("chat.postMessage") {
		switch {
		case !c.OK:
		case c.Params.Get("channel") == runsChannel && c.Params.Get("thread_ts") == "":
			livePosts++
		case c.Params.Get("channel") == alertChannel && strings.Contains(c.Params.Get("text"), "creation_errors started"):
			alertPosts++
		}
	}
	assert.Equal(t, 1, livePosts, "one live message")
	assert.Equal(t, 1, alertPosts, "the alert's start posted once")
	assert.NotEmpty(t, srv.Calls("conversations.history"), "the survivor looked before posting")
}
