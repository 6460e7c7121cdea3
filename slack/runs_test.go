package slack

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/hitlbot/hitl/steer"
	goslack "github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunMessageLinksAQuestionRecordedAfterItsRender: the run's live
// message is redrawn by a worker of its own, which may read the run (now
// waiting on a question) before the question's thread post is recorded,
// and so draw "Waiting on" without the link. The order is forced here:
// Slack holds the question's post until the live message was redrawn
// without the link. Once the post is recorded, the live message is
// redrawn with it.
func TestRunMessageLinksAQuestionRecordedAfterItsRender(t *testing.T) {
	const runs = "C0RUNS"
	srv := slackfake.New(t, slackfake.FailOnReject())
	api := goslack.New(srv.BotToken(), goslack.OptionAPIURL(srv.APIURL()))
	tb := newTestBot(t, api, access.Access{}, nil)
	tb.cfg.RunsChannel = runs
	tb.cfg.After = func(time.Duration) <-chan time.Time { // pacing windows end at once
		c := make(chan time.Time, 1)
		c <- time.Time{}
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := tb.svc.Runs.Checkpoint(auth.WithPrincipal(context.Background(), agentP),
		steer.StateEvent{RunID: "run-1", Stack: []steer.StackEntry{{ID: "run-1", Iter: 1}}})
	require.NoError(t, err)
	stop := tb.runOutbox(t)
	defer stop()
	live, err := srv.WaitForMessage(ctx, runs, nil)
	require.NoError(t, err, "the live message is posted")
	require.Eventually(t, func() bool {
		refs, err := tb.outbox.Delivered(tb.ctx, runKey("run-1"))
		return err == nil && len(refs) == 1
	}, 10*time.Second, time.Millisecond, "the live message is recorded")

	held := srv.Hold("chat.postMessage")
	tb.ask(t, agentP, hitl.NewQuestion{Question: "Which database?", Type: hitl.Blocking})
	_, err = tb.projectOnce(tb.ctx)
	require.NoError(t, err)
	require.NoError(t, held.Arrived(ctx, 1), "the question's post reaches Slack")
	unlinked, err := srv.WaitForMessage(ctx, runs, func(m slackfake.Message) bool {
		return m.TS == live.TS && strings.Contains(string(m.Blocks), "Waiting on")
	})
	require.NoError(t, err, "the live message shows the wait while the post is held")
	assert.NotContains(t, string(unlinked.Blocks), "/archives/", "drawn before the post was recorded: no link yet")

	held.Release()
	reply, err := srv.WaitForMessage(ctx, runs, func(m slackfake.Message) bool { return m.ThreadTS == live.TS })
	require.NoError(t, err, "the question is posted in the run's thread")
	link := "https://" + slackfake.TeamDomain + ".slack.com/archives/" + runs + "/p" + strings.ReplaceAll(reply.TS, ".", "")
	_, err = srv.WaitForMessage(ctx, runs, func(m slackfake.Message) bool {
		return m.TS == live.TS && strings.Contains(string(m.Blocks), link)
	})
	require.NoError(t, err, "once the post is recorded, the live message links it")
}
