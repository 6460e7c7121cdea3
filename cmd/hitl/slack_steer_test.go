package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/hitlbot/hitl/slack"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	runsChannel = "C0RUNS"
	controller  = "U0CTRL"
	steerRun    = "loop-1703123456-12345"
)

// timers is an injected timer for the bot's run updates: each wait shows
// up on the channel, and ends when the test fires it.
type timers chan chan time.Time

func (ts timers) after(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ts <- ch
	return ch
}

// startSteering starts the service with a runs channel, U0CTRL as the only
// controller (U0ANSWER may answer, not steer) and run updates at most
// every; with ts, the bot waits between updates on ts.
func startSteering(t *testing.T, every time.Duration, ts timers) *slackEnv {
	t.Helper()
	return slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 30*time.Second, func(c *config.Config, m *Main) {
		c.Slack.RunsChannel, c.Slack.Models = runsChannel, []string{"opus", "sonnet"}
		c.Slack.Controllers, c.Slack.Answerers = []string{controller}, []string{controller, "U0ANSWER"}
		tune := m.SlackTuning
		m.SlackTuning = func(bc *slack.Config) {
			tune(bc)
			bc.RunUpdateEvery = every
			if ts != nil {
				bc.After = ts.after
			}
		}
	})
}

// report publishes the agent's STATE at iteration iter of 10.
func (e *slackEnv) report(tb testing.TB, run string, iter int) {
	tb.Helper()
	_, err := e.api.Publish(e.ctx, steer.StateEvent{Schema: steer.StateSchema, Event: steer.StateRunning, RunID: run,
		Stack: []steer.StackEntry{{ID: run, Mode: "issue", Iter: iter, Max: 10, Model: "haiku"}}})
	require.NoError(tb, err)
}

// slash types /hitl text as user and returns the ack's text.
func (e *slackEnv) slash(tb testing.TB, user, text string) string {
	tb.Helper()
	ack, err := e.srv.SendSlashCommand(e.ctx, e.srv.SlashCommand(user, testChannel, "/hitl", text))
	require.NoError(tb, err)
	var p struct {
		Text string `json:"text"`
	}
	if len(ack.Payload) > 0 {
		require.NoError(tb, json.Unmarshal(ack.Payload, &p))
	}
	return p.Text
}

// steerSlash types a steering command and returns the ack's text and the
// RESULT posted to its response_url after.
func (e *slackEnv) steerSlash(tb testing.TB, user, text string) (ack, result string) {
	tb.Helper()
	n := len(e.srv.Calls("response_url"))
	ack = e.slash(tb, user, text)
	calls, err := e.srv.WaitForCalls(e.ctx, "response_url", n+1)
	require.NoError(tb, err, "no RESULT for %q", text)
	c := calls[n]
	assert.Equal(tb, "ephemeral", c.JSON["response_type"])
	result, _ = c.JSON["text"].(string)
	return ack, result
}

// liveMessage waits for the run's live message matching want.
func (e *slackEnv) liveMessage(tb testing.TB, run string, want func(slackfake.Message) bool) slackfake.Message {
	tb.Helper()
	m, err := e.srv.WaitForMessage(e.ctx, runsChannel, func(m slackfake.Message) bool {
		return m.ThreadTS == "" && strings.Contains(m.Text, "Run "+run+":") && want(m)
	})
	require.NoError(tb, err, "the live message of %s never matched", run)
	return m
}

func has(s string) func(slackfake.Message) bool {
	return func(m slackfake.Message) bool { return strings.Contains(string(m.Blocks), s) }
}

func TestSlackSteeringCommands(t *testing.T) {
	e := startSteering(t, time.Millisecond, nil)
	e.report(t, steerRun, 1)

	t.Run("pause by a unique prefix is acked, then its RESULT shown", func(t *testing.T) {
		ack, result := e.steerSlash(t, controller, "pause loop-17031")
		assert.Contains(t, ack, "`pause` received for run `"+steerRun+"`")
		assert.Contains(t, result, "✅ Loop paused at iteration 1")
	})
	t.Run("pausing again fails in plain words", func(t *testing.T) {
		_, result := e.steerSlash(t, controller, "pause "+steerRun)
		assert.Equal(t, "⚠️ Run "+steerRun+" is already paused.", result)
	})
	t.Run("resume resumes", func(t *testing.T) {
		_, result := e.steerSlash(t, controller, "resume loop-1")
		assert.Contains(t, result, "Loop resumed")
	})
	t.Run("resuming a running loop says it is not paused", func(t *testing.T) {
		_, result := e.steerSlash(t, controller, "resume loop-1")
		assert.Contains(t, result, "Run "+steerRun+" is not paused")
	})
	t.Run("escalate without a model takes the first configured one", func(t *testing.T) {
		_, result := e.steerSlash(t, controller, "escalate loop-1 stuck on type inference")
		assert.Contains(t, result, "Escalated to opus")
		run, err := e.m.Service.Runs.RunRecord(e.ctx, steerRun)
		require.NoError(t, err)
		assert.Equal(t, "stuck on type inference", run.Control.EscalationReason)
	})
	t.Run("escalate names a configured model", func(t *testing.T) {
		_, result := e.steerSlash(t, controller, "escalate loop-1 sonnet cheaper")
		assert.Contains(t, result, "Escalated to sonnet")
	})
	t.Run("redirect queues the instruction", func(t *testing.T) {
		_, result := e.steerSlash(t, controller, "redirect loop-1 fix the failing test first")
		assert.Contains(t, result, "Instruction queued")
		run, err := e.m.Service.Runs.RunRecord(e.ctx, steerRun)
		require.NoError(t, err)
		assert.Equal(t, "fix the failing test first", run.Control.Instruction)
	})
	t.Run("a non-controller is refused", func(t *testing.T) {
		_, result := e.steerSlash(t, "U0ANSWER", "pause loop-1")
		assert.Contains(t, result, "🚫 You're not allowed to steer runs")
		run, err := e.m.Service.Runs.RunRecord(e.ctx, steerRun)
		require.NoError(t, err)
		assert.Equal(t, steer.RunRunning, run.Control.Status)
	})
	t.Run("status and runs show the run", func(t *testing.T) {
		assert.Contains(t, e.slash(t, controller, "status loop-1"), "▶️ Running · iteration 1 of 10 · sonnet")
		assert.Contains(t, e.slash(t, controller, "runs"), "`loop-1703` ("+steerRun+")", "the handle to type, then the whole id")
		assert.Contains(t, e.slash(t, controller, "pending"), "Nothing is waiting on you")
		assert.Contains(t, e.slash(t, controller, "help"), "/hitl escalate RUN [MODEL] [REASON…]")
	})
	t.Run("bad arguments get usage help", func(t *testing.T) {
		assert.Contains(t, e.slash(t, controller, "pause"), "Usage: `/hitl pause RUN`")
		assert.Contains(t, e.slash(t, controller, "redirect loop-1"), "Usage: `/hitl redirect RUN INSTRUCTION…`")
		assert.Contains(t, e.slash(t, controller, "frobnicate x"), "Unknown command")
		assert.Contains(t, e.slash(t, controller, "pause nope-"), "No run is named")
	})
	t.Run("an ambiguous prefix is refused", func(t *testing.T) {
		e.report(t, "loop-2", 1)
		assert.Contains(t, e.slash(t, controller, "pause loop-"), "matches several runs")
	})
	t.Run("cancel aborts the run and its live message ends", func(t *testing.T) {
		_, result := e.steerSlash(t, controller, "cancel "+steerRun)
		assert.Contains(t, result, "Loop cancelled")
		m := e.liveMessage(t, steerRun, has("USER_CANCELLED"))
		assert.NotContains(t, string(m.Blocks), `"actions"`, "an ended run has no buttons")
	})
}

func TestSlackLiveRunMessage(t *testing.T) {
	ts := make(timers, 16)
	e := startSteering(t, time.Hour, ts)
	e.report(t, steerRun, 1)
	first := e.liveMessage(t, steerRun, has("1 of 10"))

	t.Run("a burst of STATEs becomes one update with the latest", func(t *testing.T) {
		e.report(t, steerRun, 2)
		e.report(t, steerRun, 3)
		e.report(t, steerRun, 4)
		fire := <-ts // the update waits out the window
		fire <- time.Now()
		m := e.liveMessage(t, steerRun, has("4 of 10"))
		assert.Equal(t, first.TS, m.TS, "updated in place")
		assert.Equal(t, 1, m.Updates, "one chat.update for the burst")
	})
	go func() { // from here on, windows end at once
		for {
			select {
			case ch := <-ts:
				ch <- time.Now()
			case <-e.ctx.Done():
				return
			}
		}
	}()
	t.Run("a question of the run goes in the thread and the message links it", func(t *testing.T) {
		q, _ := e.ask(t, steerRun, hitl.NewQuestion{Question: "Which database?", Type: hitl.Blocking})
		reply, err := e.srv.WaitForMessage(e.ctx, runsChannel, func(m slackfake.Message) bool {
			return m.ThreadTS == first.TS && strings.Contains(string(m.Blocks), "q:"+q.ID)
		})
		require.NoError(t, err)
		// The live message renders on the question's event, in a worker
		// of its own that may read the run before the thread reply is
		// recorded (then without the link): the link is certain in the
		// first render after the record, which the next STATE brings.
		e.recorded(t, q.ID)
		e.report(t, steerRun, 4)
		m := e.liveMessage(t, steerRun, has("https://"+slackfake.TeamDomain+".slack.com/archives/"+runsChannel+"/p"+strings.ReplaceAll(reply.TS, ".", "")))
		assert.Contains(t, string(m.Blocks), "Waiting on:*")
	})
	t.Run("pause and resume buttons steer the run", func(t *testing.T) {
		e.click(t, controller, e.liveMessage(t, steerRun, has(blocks.ActionRunPause)), blocks.ActionRunPause)
		m := e.liveMessage(t, steerRun, has("⏸ Paused"))
		e.click(t, controller, m, blocks.ActionRunResume)
		e.liveMessage(t, steerRun, has(blocks.ActionRunPause))
	})
	t.Run("a non-controller's click is refused ephemerally", func(t *testing.T) {
		e.click(t, "U0ANSWER", e.liveMessage(t, steerRun, has(blocks.ActionRunPause)), blocks.ActionRunPause)
		e.ephemeralFor(t, "U0ANSWER", "not allowed to steer")
	})
	t.Run("the escalate modal chooses the model", func(t *testing.T) {
		e.click(t, controller, e.liveMessage(t, steerRun, has(blocks.ActionRunEscalate)), blocks.ActionRunEscalate)
		view := lastModal(t, e, blocks.CallbackEscalate)
		ack, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission(controller, view, map[string]map[string]string{
			blocks.BlockModel: {blocks.InputActionID: "sonnet"}, blocks.BlockWhy: {blocks.InputActionID: "too slow"}}))
		require.NoError(t, err)
		assert.Empty(t, ack.Payload, "the modal closes")
		e.liveMessage(t, steerRun, has("sonnet"))
	})
	t.Run("the redirect modal hands over the instruction", func(t *testing.T) {
		e.click(t, controller, e.liveMessage(t, steerRun, has(blocks.ActionRunRedirect)), blocks.ActionRunRedirect)
		view := lastModal(t, e, blocks.CallbackRedirect)
		_, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission(controller, view, map[string]map[string]string{
			blocks.BlockInstruction: {blocks.InputActionID: "write the migration first"}}))
		require.NoError(t, err)
		cp, err := e.api.Checkpoint(e.ctx, steer.StateEvent{RunID: steerRun, Stack: []steer.StackEntry{{ID: steerRun, Iter: 5, Max: 10}}})
		require.NoError(t, err)
		assert.Equal(t, "write the migration first", cp.Instruction)
	})
	t.Run("cancel asks for confirmation and ends the run", func(t *testing.T) {
		m := e.liveMessage(t, steerRun, has(blocks.ActionRunCancel))
		assert.Contains(t, string(m.Blocks), `"confirm":{`, "Cancel has a confirm dialog")
		e.click(t, controller, e.liveMessage(t, steerRun, has(blocks.ActionRunRedirect)), blocks.ActionRunRedirect)
		redirect := lastModal(t, e, blocks.CallbackRedirect)
		e.click(t, controller, m, blocks.ActionRunCancel)
		end := e.liveMessage(t, steerRun, has("Aborted: USER_CANCELLED"))
		assert.NotContains(t, string(end.Blocks), `"actions"`)
		assert.Equal(t, first.TS, end.TS)

		ack, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission(controller, redirect, map[string]map[string]string{
			blocks.BlockInstruction: {blocks.InputActionID: "too late"}}))
		require.NoError(t, err)
		assert.Contains(t, string(ack.Payload), `"response_action":"errors"`, "the modal stays open")
		assert.Contains(t, string(ack.Payload), "is not active")
	})
}

// lastModal returns the modal last opened, which must have callbackID.
func lastModal(t *testing.T, e *slackEnv, callbackID string) slackfake.View {
	t.Helper()
	_, err := e.srv.WaitForCall(e.ctx, "views.open", func(c slackfake.Call) bool {
		return c.OK && strings.Contains(c.Param("view"), callbackID)
	})
	require.NoError(t, err)
	v, ok := e.srv.LastView()
	require.True(t, ok)
	require.Equal(t, callbackID, v.CallbackID)
	return v
}

func steeringConfig(c *config.Config, m *Main) {
	c.Slack.RunsChannel, c.Slack.Models = runsChannel, []string{"opus"}
	c.Slack.Controllers, c.Slack.Answerers = []string{controller}, []string{controller, "U0ANSWER"}
	tune := m.SlackTuning
	m.SlackTuning = func(bc *slack.Config) {
		if tune != nil {
			tune(bc)
		}
		bc.RunUpdateEvery = time.Nanosecond
	}
}

func TestSlackLiveRunMessageSurvivesARestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 30*time.Second)
	defer cancel()
	srv := slackfake.New(t, slackfake.FailOnReject())
	sameDB := dbFile(t)

	first := startMainNoCleanup(t, sameDB, withSlack(srv), steeringConfig)
	require.NoError(t, srv.WaitConnected(ctx, 1))
	e := &slackEnv{ctx: ctx, m: first, srv: srv, api: client.NewClient(first.URL(), "")}
	e.report(t, steerRun, 1)
	posted := e.liveMessage(t, steerRun, has("1 of 10"))
	require.NoError(t, first.Close())

	second := startMain(t, sameDB, withSlack(srv), steeringConfig)
	require.NoError(t, srv.WaitConnected(ctx, 2))
	e = &slackEnv{ctx: ctx, m: second, srv: srv, api: client.NewClient(second.URL(), "")}
	e.report(t, steerRun, 2)
	m := e.liveMessage(t, steerRun, has("2 of 10"))
	assert.Equal(t, posted.TS, m.TS, "the same message, updated in place after the restart")
	var lives int
	for _, c := range srv.Calls("chat.postMessage") {
		if c.OK && strings.Contains(c.Param("text"), "Run "+steerRun+":") {
			lives++
		}
	}
	assert.Equal(t, 1, lives, "never posted twice")
}

func TestSlackCancelledRunCancelsItsQuestions(t *testing.T) {
	e := startSteering(t, time.Nanosecond, nil)
	e.report(t, steerRun, 1)
	e.liveMessage(t, steerRun, has("1 of 10"))
	e.report(t, steerRun, 2)
	e.liveMessage(t, steerRun, has("2 of 10")) // updated: the live message's record is in the store
	q, done := e.ask(t, steerRun, hitl.NewQuestion{Question: "Which database?"})
	inThread, err := e.srv.WaitForMessage(e.ctx, runsChannel, func(m slackfake.Message) bool {
		return m.ThreadTS != "" && strings.Contains(string(m.Blocks), "q:"+q.ID)
	})
	require.NoError(t, err)
	_, result := e.steerSlash(t, controller, "cancel "+steerRun)
	assert.Contains(t, result, "Loop cancelled")
	r := <-done
	require.NoError(t, r.err)
	require.Equal(t, hitl.StatusCancelled, r.q.Status, "the waiting agent learns its question was cancelled")
	assert.Contains(t, r.q.CancelReason, "cancelled by slack:"+controller)
	settled, err := e.srv.WaitForMessage(e.ctx, runsChannel, func(m slackfake.Message) bool {
		return m.TS == inThread.TS && m.Updates > 0
	})
	require.NoError(t, err, "the question's message is updated")
	assert.Contains(t, strings.ToLower(settled.Text), "cancelled", "and says it was cancelled")
	assert.NotContains(t, string(settled.Blocks), `"actions"`, "with no buttons left")
}
