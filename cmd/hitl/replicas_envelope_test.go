package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/hitlbot/hitl/slack"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two replicas with Slack on one database, each with its own Socket Mode
// connection: an envelope Slack delivers again on the other replica's
// connection (its ack was late) is acked there but handled once, because
// the record of handled envelopes is in the database.
func TestReplicasHandleARedeliveredEnvelopeOnce(t *testing.T) {
	url, key := pgtest.DB(t), keyFile(t)
	srv := slackfake.New(t, slackfake.FailOnReject())
	replica := func() *Main {
		return startReplica(t, url, key, withSlack(srv), func(c *config.Config, _ *Main) {
			c.Slack.Controllers, c.Slack.Answerers = []string{controller}, []string{controller, "U0ALICE"}
		})
	}
	r1, r2 := replica(), replica()
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 60*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitConnected(ctx, 2))

	// elsewhere redelivers env on a connection other than the one that
	// acked it first: the other replica's.
	elsewhere := func(t *testing.T, first slackfake.Ack) slackfake.Ack {
		t.Helper()
		conns := srv.ReadyConnections()
		require.Len(t, conns, 2)
		other := conns[0]
		if other == first.Conn {
			other = conns[1]
		}
		require.NotEqual(t, first.Conn, other)
		again, err := srv.RedeliverOn(ctx, first.Envelope, 1, other)
		require.NoError(t, err)
		require.Equal(t, other, again.Conn)
		return again
	}

	t.Run("a slash command steers the run once", func(t *testing.T) {
		api := client.NewClient(r1.URL(), "")
		_, err := api.Publish(ctx, steer.StateEvent{Schema: steer.StateSchema, Event: steer.StateRunning, RunID: steerRun,
			Stack: []steer.StackEntry{{ID: steerRun, Mode: "issue", Iter: 1, Max: 10, Model: "haiku"}}})
		require.NoError(t, err)
		first, err := srv.SendSlashCommand(ctx, srv.SlashCommand(controller, testChannel, "/hitl", "pause "+steerRun))
		require.NoError(t, err)
		require.NotEmpty(t, first.Payload, "the first delivery is answered in its ack")
		again := elsewhere(t, first)
		assert.Empty(t, again.Payload, "the redelivery is acked bare: not handled again")

		evs, _, err := r2.DB.RunEvents(ctx, steerRun, 0, 0)
		require.NoError(t, err)
		var acks int
		for _, ev := range evs {
			if ev.Type == hitl.EventControl && ev.Control != nil && ev.Control.Type == steer.MessageAck {
				acks++
			}
		}
		assert.Equal(t, 1, acks, "one control request received")
		run, err := r2.Service.Runs.RunRecord(ctx, steerRun)
		require.NoError(t, err)
		assert.Equal(t, steer.RunPaused, run.Control.Status)
	})

}

// A run's live message is its delivery record in the database: whichever
// replica brings it up to date edits the one message, never posts a
// second.
func TestReplicasUpdateOneLiveRunMessage(t *testing.T) {
	url, key := pgtest.DB(t), keyFile(t)
	srv := slackfake.New(t, slackfake.FailOnReject())
	replica := func() *Main {
		return startReplica(t, url, key, withSlack(srv), func(c *config.Config, m *Main) {
			c.Slack.RunsChannel = runsChannel
			tune := m.SlackTuning
			m.SlackTuning = func(bc *slack.Config) { tune(bc); bc.RunUpdateEvery = time.Millisecond }
		})
	}
	r1, r2 := replica(), replica()
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 60*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitConnected(ctx, 2))
	e := &slackEnv{ctx: ctx, m: r1, srv: srv}

	_, err := client.NewClient(r1.URL(), "").Publish(ctx, steer.StateEvent{Schema: steer.StateSchema, Event: steer.StateRunning, RunID: steerRun,
		Stack: []steer.StackEntry{{ID: steerRun, Mode: "issue", Iter: 1, Max: 10, Model: "haiku"}}})
	require.NoError(t, err)
	e.liveMessage(t, steerRun, has(blocks.ActionRunPause))
	steps := []struct {
		on   *Main
		cmd  steer.Command
		want string
	}{
		{r2, steer.CommandPause, blocks.ActionRunResume},
		{r1, steer.CommandResume, blocks.ActionRunPause},
		{r2, steer.CommandPause, blocks.ActionRunResume},
		{r1, steer.CommandResume, blocks.ActionRunPause},
	}
	for i, s := range steps {
		msgs, err := s.on.Service.Runs.Control(ctx, steer.NewRequest(fmt.Sprintf("live-%d", i), s.cmd, steerRun, time.Now(), steer.ControlPayload{}))
		require.NoError(t, err)
		require.Equal(t, steer.ResultSuccess, msgs[len(msgs)-1].Payload.Status)
		e.liveMessage(t, steerRun, has(s.want))
	}
	posts := 0
	for _, c := range srv.Calls("chat.postMessage") {
		if c.OK && c.Params.Get("channel") == runsChannel && strings.Contains(c.Params.Get("text"), steerRun) {
			posts++
		}
	}
	assert.Equal(t, 1, posts, "one live message, updated in place by both replicas")
	assert.NotEmpty(t, srv.Calls("chat.update"))
}
