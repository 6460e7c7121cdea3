package main

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startSlackWithGroup starts the service with user group S0OPS (Alice)
// among the answerers, so /hitl pending looks up who is in it.
func startSlackWithGroup(t *testing.T) *slackEnv {
	t.Helper()
	srv := slackfake.New(t, slackfake.FailOnReject(), slackfake.WithUserGroup("S0OPS", "U0ALICE"))
	return slackEnvOn(t, srv, 30*time.Second, withSlackSettings(func(s *config.Slack) {
		s.Answerers = []string{"S0OPS"}
	}))
}

type ackResult struct {
	ack slackfake.Ack
	err error
}

func (e *slackEnv) slashAsync(tb testing.TB, user, text string) <-chan ackResult {
	ch := make(chan ackResult, 1)
	go func() {
		ack, err := e.srv.SendSlashCommand(e.ctx, e.srv.SlashCommand(user, testChannel, "/hitl", text))
		ch <- ackResult{ack, err}
	}()
	return ch
}

func TestSlackSlowSlashCommandDelaysNoOtherAck(t *testing.T) {
	e := startSlackWithGroup(t)
	q, _ := e.ask(t, "slow", hitl.NewQuestion{Question: "Ship the hotfix?", ResponseType: hitl.BooleanResponse, Assignees: []string{"S0OPS"}})
	e.posted(t, testChannel, q)
	hold := e.srv.Hold("usergroups.users.list")
	defer hold.Release()

	slow := e.slashAsync(t, "U0ALICE", "pending")
	require.NoError(t, hold.Arrived(e.ctx, 1), "the slash command looks up Alice's groups")

	t.Run("another envelope is acked while the lookup hangs", func(t *testing.T) {
		help, err := e.srv.SendSlashCommand(e.ctx, e.srv.SlashCommand("U0BOB", testChannel, "/hitl", "help"))
		require.NoError(t, err)
		assert.Contains(t, string(help.Payload), "/hitl pending")
		_, err = e.srv.SendEvent(e.ctx, e.srv.AppHomeOpened("U0BOB"))
		require.NoError(t, err, "App Home is acked at once, its tab built after")
		select {
		case r := <-slow:
			t.Fatalf("the slow slash command was acked before its lookup returned: %+v", r)
		default:
		}
	})
	t.Run("released, the slow command lists the group's question in time", func(t *testing.T) {
		hold.Release()
		var r ackResult
		select {
		case r = <-slow:
		case <-e.ctx.Done():
			t.Fatal("the slow slash command was never acked")
		}
		require.NoError(t, r.err)
		assert.Contains(t, string(r.ack.Payload), q.ID)
		assert.Less(t, r.ack.Latency, 3*time.Second)
	})
}

func TestSlackHangingGroupLookupStillAnswersInTime(t *testing.T) {
	e := startSlackWithGroup(t)
	hold := e.srv.Hold("usergroups.users.list")
	defer hold.Release()
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	ack, err := e.srv.SendSlashCommand(ctx, e.srv.SlashCommand("U0ALICE", testChannel, "/hitl", "pending"))
	require.NoError(t, err, "acked within Slack's 3 s although the lookup never returned")
	assert.Contains(t, string(ack.Payload), "ephemeral")
	assert.Less(t, ack.Latency, 3*time.Second)
}
