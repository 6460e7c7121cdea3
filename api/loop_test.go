package api

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/eventtest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// steer sends command to run as a controller, through the service.
func (e *env) steer(t *testing.T, c steer.Command, run string, p steer.ControlPayload) steer.ControlPayload {
	t.Helper()
	msgs, err := e.svc.Runs.Control(principaltest.As(context.Background(), "admin:ops"), steer.NewRequest(client.NewRequestID(), c, run, e.clock.Now(), p))
	require.NoError(t, err)
	return msgs[len(msgs)-1].Payload
}

// untilEvent waits until the log holds an event matching ok.
func (e *env) untilEvent(t *testing.T, what string, ok func(*hitl.Event) bool) {
	t.Helper()
	eventtest.Until(t, e.svc, what, ok)
}

func TestLoop(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, ServerConfig{})
	e.client = e.client.With(client.WithPollWait(2 * time.Second)) // server-held polls end quickly in tests
	c := e.client
	loop, err := c.Run(ctx, "loop-1", client.RunOptions{IssueID: "auth-123", Mode: "issue", Max: 10, Model: "haiku"})
	require.NoError(t, err)
	defer loop.Close()

	t.Run("a checkpoint while running returns at once", func(t *testing.T) {
		step, err := loop.Checkpoint(ctx, 1)
		require.NoError(t, err)
		assert.Equal(t, "haiku", step.Model)
		assert.Empty(t, step.NewModel)
	})
	t.Run("a checkpoint while paused blocks until resumed", func(t *testing.T) {
		require.Equal(t, steer.ResultSuccess, e.steer(t, steer.CommandPause, "loop-1", steer.ControlPayload{}).Status)
		done := make(chan error, 1)
		go func() { _, err := loop.Checkpoint(ctx, 2); done <- err }()
		e.untilEvent(t, "the paused loop reported iteration 2", func(ev *hitl.Event) bool {
			return ev.Type == hitl.EventRunState && ev.State.Event == steer.StateRunning && ev.State.Stack[0].Iter == 2
		})
		select {
		case err := <-done:
			t.Fatalf("the checkpoint returned while paused: %v", err)
		default:
		}
		require.Equal(t, steer.ResultSuccess, e.steer(t, steer.CommandResume, "loop-1", steer.ControlPayload{}).Status)
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(testDeadline):
			t.Fatal("the checkpoint did not return after resume")
		}
	})
	t.Run("an escalation and a redirect are handed over once", func(t *testing.T) {
		p := e.steer(t, steer.CommandEscalate, "loop-1", steer.ControlPayload{Model: "opus", Reason: "stuck"})
		assert.Equal(t, "haiku", p.PreviousModel)
		e.steer(t, steer.CommandRedirect, "loop-1", steer.ControlPayload{Instruction: "Use the v2 API"})
		step, err := loop.Checkpoint(ctx, 3)
		require.NoError(t, err)
		assert.Equal(t, "opus", step.NewModel)
		assert.Equal(t, "Use the v2 API", step.Instruction)
		assert.Equal(t, "opus", loop.Model())
		step, err = loop.Checkpoint(ctx, 4)
		require.NoError(t, err)
		assert.Empty(t, step.NewModel, "once")
		assert.Empty(t, step.Instruction, "once")
		assert.Equal(t, "opus", step.Model)
	})
	t.Run("a cancel ends Context at once and the next checkpoint says so", func(t *testing.T) {
		require.Equal(t, steer.ResultSuccess, e.steer(t, steer.CommandCancel, "loop-1", steer.ControlPayload{}).Status)
		select {
		case <-loop.Context().Done():
		case <-time.After(testDeadline):
			t.Fatal("Context was not cancelled")
		}
		assert.Equal(t, fault.ECANCELLED, fault.Code(context.Cause(loop.Context())))
		_, err := loop.Checkpoint(ctx, 5)
		require.Equal(t, fault.ECANCELLED, fault.Code(err))
		assert.Contains(t, fault.Message(err), "USER_CANCELLED")
	})
}

func TestLoopDoneCancelsItsQuestions(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, ServerConfig{})
	loop, err := e.client.Run(ctx, "loop-2", client.RunOptions{Model: "sonnet"})
	require.NoError(t, err)
	q, _, err := e.client.Create(ctx, "loop-2", hitl.NewQuestion{Question: "Which DB?"})
	require.NoError(t, err)
	require.NoError(t, loop.Done(ctx))
	got, err := e.svc.Questions.Question(principaltest.As(ctx, "admin:t"), q.ID)
	require.NoError(t, err)
	assert.Equal(t, hitl.StatusCancelled, got.Status)
	assert.Contains(t, got.CancelReason, "the run ended (done)")
}

func TestControlTopicOverHTTP(t *testing.T) {
	e := newEnv(t, ServerConfig{})
	ctx := context.Background()
	_, err := e.client.Run(ctx, "loop-1703123456-12345", client.RunOptions{Model: "haiku", Max: 10})
	require.NoError(t, err)
	t.Run("flow A: the seed's REQUEST gets ACK then RESULT", func(t *testing.T) {
		r := e.call(t, "POST", "/api/topics/loop:control", `{"schema":0,"type":"REQUEST","request_id":"req-pause-001","command":"pause","target":{"run_id":"loop-1703123456-12345","issue_id":"auth-123"},"timestamp":"2024-12-28T10:00:00Z","payload":{}}`)
		require.Equal(t, http.StatusOK, r.status, r.raw)
		var body wire.ControlResponse
		require.NoError(t, json.Unmarshal([]byte(r.raw), &body))
		require.Len(t, body.Messages, 2)
		assert.Equal(t, steer.MessageAck, body.Messages[0].Type)
		assert.Equal(t, "auth-123", body.Messages[0].Target.IssueID)
		assert.Equal(t, steer.ResultSuccess, body.Messages[1].Payload.Status)
	})
	t.Run("the same request_id again returns the cached RESULT", func(t *testing.T) {
		r := e.call(t, "POST", "/api/topics/loop:control", `{"schema":0,"type":"REQUEST","request_id":"req-pause-001","command":"pause","target":{"run_id":"loop-1703123456-12345"},"timestamp":"2024-12-28T10:00:00Z","payload":{}}`)
		var body wire.ControlResponse
		require.NoError(t, json.Unmarshal([]byte(r.raw), &body))
		require.Len(t, body.Messages, 1)
		assert.Equal(t, steer.ResultSuccess, body.Messages[0].Payload.Status)
	})
	t.Run("a malformed REQUEST gets a bad_request RESULT and no ACK", func(t *testing.T) {
		r := e.call(t, "POST", "/api/topics/loop:control", `{"schema":0,"type":"REQUEST","request_id":"r2","command":"pause","timestamp":"2024-12-28T10:00:00Z","payload":{}}`)
		var body wire.ControlResponse
		require.NoError(t, json.Unmarshal([]byte(r.raw), &body))
		require.Len(t, body.Messages, 1)
		assert.Equal(t, steer.CodeBadRequest, body.Messages[0].Payload.Code)
		assert.Contains(t, body.Messages[0].Payload.Message, "target is required")
	})
	t.Run("the SDK's Control gives the seed's codes", func(t *testing.T) {
		msgs, err := e.client.Control(ctx, steer.NewRequest("", steer.CommandResume, "nope", e.clock.Now(), steer.ControlPayload{}))
		require.NoError(t, err)
		code, failed := msgs[len(msgs)-1].Failed()
		assert.True(t, failed)
		assert.Equal(t, steer.CodeNotFound, code)
		assert.Len(t, msgs[0].RequestID, 36, "a UUID v4")
	})
	t.Run("runs lists the active loop", func(t *testing.T) {
		page, err := e.client.Runs(ctx, true, 0, "")
		require.NoError(t, err)
		require.Len(t, page.Runs, 1)
		assert.Equal(t, steer.RunPaused, page.Runs[0].Control.Status)
	})
	t.Run("a run's own threshold is set over the API", func(t *testing.T) {
		r := e.call(t, "POST", "/api/jobs/loop-1703123456-12345", `{"interactionThreshold": 9}`)
		requireError(t, r, http.StatusBadRequest, fault.EINVALID)
		assert.Contains(t, r.body["message"], "interactionThreshold must be a whole number from 0 to 5")
		r = e.call(t, "POST", "/api/jobs/loop-1703123456-12345", `{"interactionThreshold": 0}`)
		require.Equal(t, http.StatusOK, r.status, r.raw)
		r = e.call(t, "POST", "/api/jobs/loop-1703123456-12345/questions", `{"question":"Which DB?"}`)
		requireError(t, r, http.StatusUnprocessableEntity, fault.EREFUSED)
	})
}
