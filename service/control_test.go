package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/runhandle"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	controller = auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeControl}, "")
	loopAgent  = auth.TokenPrincipal("loop", nil, "")
)

type controlEnv struct {
	st    *memstore.Store
	svc   *service.Service
	clock *clocktest.Clock
}

func newControlEnv(t *testing.T) *controlEnv {
	st := memstore.New()
	clock := clocktest.New(t0)
	return &controlEnv{st: st, clock: clock, svc: service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock})}
}

// state has the loop report iteration iter of 10 with model.
func (e *controlEnv) state(t *testing.T, run string, iter int, model string) hitl.Checkpoint {
	t.Helper()
	cp, err := e.svc.Runs.Checkpoint(auth.WithPrincipal(context.Background(), loopAgent), steer.StateEvent{RunID: run,
		Stack: []steer.StackEntry{{ID: run, Mode: "issue", Iter: iter, Max: 10, Model: model}}})
	require.NoError(t, err)
	return cp
}

func (e *controlEnv) send(t *testing.T, p auth.Principal, id string, c steer.Command, run string, pl steer.ControlPayload) []steer.ControlMessage {
	t.Helper()
	msgs, err := e.svc.Runs.Control(auth.WithPrincipal(context.Background(), p), steer.NewRequest(id, c, run, e.clock.Now(), pl))
	require.NoError(t, err)
	return msgs
}

func result(t *testing.T, msgs []steer.ControlMessage) steer.ControlPayload {
	t.Helper()
	last := msgs[len(msgs)-1]
	require.Equal(t, steer.MessageResult, last.Type)
	return last.Payload
}

func TestControlFlows(t *testing.T) {
	t.Run("flow A: pause then resume, each acked then settled", func(t *testing.T) {
		e := newControlEnv(t)
		e.state(t, "loop-1", 4, "haiku")
		msgs := e.send(t, controller, "req-pause-001", steer.CommandPause, "loop-1", steer.ControlPayload{})
		require.Len(t, msgs, 2)
		assert.Equal(t, steer.MessageAck, msgs[0].Type)
		assert.Equal(t, "req-pause-001", msgs[0].RequestID)
		assert.Equal(t, steer.ResultSuccess, result(t, msgs).Status)
		assert.Equal(t, "Loop paused at iteration 4 of 10", result(t, msgs).Message)
		cp := e.state(t, "loop-1", 4, "haiku")
		assert.Equal(t, steer.RunPaused, cp.Status, "the checkpoint tells the loop to wait")
		run, err := e.svc.Runs.RunRecord(auth.WithPrincipal(context.Background(), controller), "loop-1")
		require.NoError(t, err)
		assert.Equal(t, steer.RunPaused, run.Status())

		msgs = e.send(t, controller, "req-resume-001", steer.CommandResume, "loop-1", steer.ControlPayload{})
		assert.Equal(t, steer.ResultSuccess, result(t, msgs).Status)
		assert.Equal(t, steer.RunRunning, e.state(t, "loop-1", 5, "haiku").Status)
	})
	t.Run("flow B: cancel, then ABORT USER_CANCELLED after the RESULT, and the run's questions are cancelled", func(t *testing.T) {
		e := newControlEnv(t)
		e.state(t, "grind-1", 2, "haiku")
		q, _, err := e.svc.Questions.Create(auth.WithPrincipal(context.Background(), loopAgent), "grind-1", hitl.NewQuestion{Question: "Which DB?"})
		require.NoError(t, err)
		msgs := e.send(t, controller, "req-cancel-001", steer.CommandCancel, "grind-1", steer.ControlPayload{})
		assert.Equal(t, steer.ResultSuccess, result(t, msgs).Status)
		evs, _ := e.st.Events(context.Background(), 0, 0)
		var order []string
		for _, ev := range evs {
			switch ev.Type {
			case hitl.EventControl:
				order = append(order, string(ev.Control.Type))
			case hitl.EventRunState:
				order = append(order, string(ev.State.Event)+":"+ev.State.Reason)
			case hitl.EventQuestionCancelled:
				order = append(order, "question_cancelled")
			}
		}
		assert.Equal(t, []string{"STATE:", "ACK", "RESULT", "ABORT:USER_CANCELLED", "question_cancelled"}, order)
		got, err := e.svc.Questions.Question(auth.WithPrincipal(context.Background(), admin), q.ID)
		require.NoError(t, err)
		assert.Equal(t, hitl.StatusCancelled, got.Status)
		assert.Contains(t, got.CancelReason, "cancelled by api:ops")
		assert.Equal(t, steer.RunCancelled, e.state(t, "grind-1", 3, "haiku").Status, "the loop learns it was cancelled")
	})
	t.Run("flow C: escalate reports both models, then a STATE with the new model; handed over once", func(t *testing.T) {
		e := newControlEnv(t)
		e.state(t, "loop-2", 5, "haiku")
		msgs := e.send(t, controller, "req-escalate-001", steer.CommandEscalate, "loop-2",
			steer.ControlPayload{Model: "opus", Reason: "Stuck on complex type inference"})
		p := result(t, msgs)
		assert.Equal(t, "haiku", p.PreviousModel)
		assert.Equal(t, "opus", p.NewModel)
		evs, _ := e.st.Events(context.Background(), 0, 0)
		last := evs[len(evs)-1]
		require.Equal(t, hitl.EventRunState, last.Type)
		assert.Equal(t, steer.StateRunning, last.State.Event)
		assert.Equal(t, "opus", last.State.Stack[0].Model)
		assert.Equal(t, "Stuck on complex type inference", last.State.Stack[0].EscalationReason)
		cp := e.state(t, "loop-2", 5, "haiku")
		assert.Equal(t, "opus", cp.NewModel, "the next checkpoint hands the new model over")
		assert.Equal(t, "opus", cp.Model)
		assert.Empty(t, e.state(t, "loop-2", 6, "opus").NewModel, "once")
	})
	t.Run("flow D: a finished or unknown run is not active", func(t *testing.T) {
		e := newControlEnv(t)
		_, err := e.svc.Runs.Publish(auth.WithPrincipal(context.Background(), loopAgent), steer.StateEvent{Event: steer.StateDone, RunID: "loop-completed-xyz"})
		require.NoError(t, err)
		for _, run := range []string{"loop-completed-xyz", "never-seen"} {
			msgs := e.send(t, controller, "req-race-"+run, steer.CommandPause, run, steer.ControlPayload{})
			p := result(t, msgs)
			assert.Equal(t, steer.ResultFailure, p.Status)
			assert.Equal(t, steer.CodeNotFound, p.Code)
			assert.Equal(t, "Run "+run+" is not active", p.Message)
		}
	})
	t.Run("redirect hands the instruction over once", func(t *testing.T) {
		e := newControlEnv(t)
		e.state(t, "loop-3", 1, "sonnet")
		msgs := e.send(t, controller, "req-redirect-1", steer.CommandRedirect, "loop-3", steer.ControlPayload{Instruction: "Use the v2 API instead"})
		assert.Equal(t, steer.ResultSuccess, result(t, msgs).Status)
		assert.Equal(t, "Use the v2 API instead", e.state(t, "loop-3", 2, "sonnet").Instruction)
		assert.Empty(t, e.state(t, "loop-3", 3, "sonnet").Instruction)
	})
}

func TestControlErrors(t *testing.T) {
	e := newControlEnv(t)
	e.state(t, "loop-1", 1, "haiku")
	t.Run("invalid_state: resume a running run, pause a paused one", func(t *testing.T) {
		p := result(t, e.send(t, controller, "r1", steer.CommandResume, "loop-1", steer.ControlPayload{}))
		assert.Equal(t, steer.CodeInvalidState, p.Code)
		e.send(t, controller, "r2", steer.CommandPause, "loop-1", steer.ControlPayload{})
		p = result(t, e.send(t, controller, "r3", steer.CommandPause, "loop-1", steer.ControlPayload{}))
		assert.Equal(t, steer.CodeInvalidState, p.Code)
		assert.Equal(t, "Run loop-1 is already paused", p.Message)
	})
	t.Run("a retry within five minutes gets the cached RESULT", func(t *testing.T) {
		first := result(t, e.send(t, controller, "r3", steer.CommandPause, "loop-1", steer.ControlPayload{}))
		e.clock.Add(4 * time.Minute)
		again := e.send(t, controller, "r3", steer.CommandPause, "loop-1", steer.ControlPayload{})
		require.Len(t, again, 1, "no new ACK: only the cached RESULT")
		assert.Equal(t, first, again[0].Payload)
		assert.Equal(t, steer.CommandPause, again[0].Command)
		other := e.send(t, controller, "r3", steer.CommandResume, "loop-1", steer.ControlPayload{})
		require.Len(t, other, 1, "the same id for another command: refused, not received")
		assert.Equal(t, steer.CodeDuplicate, other[0].Payload.Code)
		assert.Contains(t, other[0].Payload.Message, "was already used at")
	})
	t.Run("after the window the id is new again", func(t *testing.T) {
		e.clock.Add(2 * time.Minute)
		msgs := e.send(t, controller, "r2", steer.CommandResume, "loop-1", steer.ControlPayload{})
		require.Len(t, msgs, 2)
		assert.Equal(t, steer.ResultSuccess, result(t, msgs).Status)
	})
	t.Run("duplicate while an older hitl's replica has it in flight", func(t *testing.T) {
		inflight(t, e.st, "r9", "loop-1", e.clock.Now())
		p := result(t, e.send(t, controller, "r9", steer.CommandPause, "loop-1", steer.ControlPayload{}))
		assert.Equal(t, steer.CodeDuplicate, p.Code)
	})
	t.Run("a request cut off by a restart is carried out when retried", func(t *testing.T) {
		inflight(t, e.st, "r10", "loop-1", e.clock.Now())
		e.clock.Add(time.Second)
		restarted := service.NewService(e.st, service.ServiceConfig{Notifier: notify.New(), Clock: e.clock})
		msgs, err := restarted.Runs.Control(auth.WithPrincipal(context.Background(), controller), steer.NewRequest("r10", steer.CommandPause, "loop-1", e.clock.Now(), steer.ControlPayload{}))
		require.NoError(t, err)
		require.Len(t, msgs, 2)
		assert.Equal(t, steer.ResultSuccess, result(t, msgs).Status)
		run, _ := restarted.Runs.RunRecord(auth.WithPrincipal(context.Background(), controller), "loop-1")
		assert.Equal(t, steer.RunPaused, run.Control.Status, "the paused state is in the store: it survives the restart")
	})
	t.Run("forbidden without the control scope, audited", func(t *testing.T) {
		p := result(t, e.send(t, loopAgent, "r11", steer.CommandCancel, "loop-1", steer.ControlPayload{}))
		assert.Equal(t, steer.CodeForbidden, p.Code)
		assert.Contains(t, p.Message, "api:loop lacks the control scope")
		evs, _, err := e.svc.Log.Events(auth.WithPrincipal(context.Background(), admin), 0, 0)
		require.NoError(t, err)
		var refused bool
		for _, ev := range evs {
			refused = refused || (ev.Type == hitl.EventRefused && ev.Action == auth.ActionSteer && ev.Actor == "api:loop")
		}
		assert.True(t, refused)
	})
}

// TestControlRequestIDsPerPrincipal: the steering protocol's request ids deduplicate
// per principal. The same principal's retry gets the cached RESULT alone;
// another principal's request with the same id is a new request (ACK and
// a RESULT of its own), which never sees the first one's RESULT, and a
// refusal is not cached for anyone else. The local principals of a
// tokenless server are one.
func TestControlRequestIDsPerPrincipal(t *testing.T) {
	other := auth.TokenPrincipal("ops2", []auth.Scope{auth.ScopeControl}, "")
	for _, c := range []struct {
		name          string
		first, second auth.Principal
		firstStatus   string
		retry         bool   // second gets the first's RESULT alone
		code          string // else second's own RESULT code ("" success)
	}{
		{"the same principal's retry gets the cached RESULT", controller, controller, steer.ResultSuccess, true, ""},
		{"another controller's request with the id is carried out anew", controller, other, steer.ResultSuccess, false, steer.CodeInvalidState},
		{"a refusal is not cached for another principal", loopAgent, controller, steer.ResultFailure, false, ""},
		{"a refused principal never sees another's RESULT", controller, loopAgent, steer.ResultSuccess, false, steer.CodeForbidden},
		{"the refused principal's own retry gets its refusal", loopAgent, loopAgent, steer.ResultFailure, true, ""},
		{"a tokenless server's local principals are one", auth.LocalPrincipal("alice"), auth.LocalPrincipal("bob"), steer.ResultSuccess, true, ""},
		{"a token speaking for a Slack user is not that Slack user", auth.TokenPrincipal("bot", []auth.Scope{auth.ScopeControl}, "U0OPS"),
			auth.TokenPrincipal("U0OPS-cli", []auth.Scope{auth.ScopeControl}, "U0OPS"), steer.ResultSuccess, false, steer.CodeInvalidState},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newControlEnv(t)
			e.state(t, "loop-1", 1, "haiku")
			first := e.send(t, c.first, "req-1", steer.CommandPause, "loop-1", steer.ControlPayload{})
			require.Len(t, first, 2, "ACK and RESULT")
			require.Equal(t, c.firstStatus, result(t, first).Status)
			e.clock.Add(time.Minute)
			second := e.send(t, c.second, "req-1", steer.CommandPause, "loop-1", steer.ControlPayload{})
			if c.retry {
				require.Len(t, second, 1, "only the cached RESULT")
				assert.Equal(t, first[1], second[0])
				return
			}
			require.Len(t, second, 2, "a new request: its own ACK and RESULT")
			assert.Equal(t, steer.MessageAck, second[0].Type)
			got := result(t, second)
			assert.Equal(t, c.code, got.Code, got.Message)
			assert.NotEqual(t, first[1].Payload, got, "not the first one's RESULT")
			assert.Equal(t, steer.Timestamp(e.clock.Now()), second[1].Timestamp, "given now")
		})
	}
}

// inflight stores controller's request id as received and not carried
// out, as an older hitl did before the command's commit (the steering protocol's "in
// flight").
func inflight(t *testing.T, st hitl.Store, id, run string, at time.Time) {
	t.Helper()
	_, err := st.UpdateRun(context.Background(), run, func(*hitl.Run) (hitl.RunUpdate, error) {
		return hitl.RunUpdate{Control: &hitl.ControlRecord{RequestID: id, RunID: run, Command: steer.CommandPause, By: controller.ID, At: at}}, nil
	})
	require.NoError(t, err)
}

func TestControlRequestFields(t *testing.T) {
	for _, c := range []struct {
		name, id string
		cmd      steer.Command
		run      string
		payload  steer.ControlPayload
		message  string
	}{
		{"no request id", "", steer.CommandPause, "x", steer.ControlPayload{}, "request_id is required (a UUID v4)"},
		{"unknown command", "r", "explode", "x", steer.ControlPayload{}, `command "explode" is unknown: use pause, resume, cancel, escalate or redirect`},
		{"escalate sans model", "r", steer.CommandEscalate, "x", steer.ControlPayload{}, "escalate needs payload.model (like opus)"},
		{"redirect sans instruction", "r", steer.CommandRedirect, "x", steer.ControlPayload{}, "redirect needs payload.instruction"},
	} {
		t.Run(c.name+" is a bad request", func(t *testing.T) {
			e := newControlEnv(t)
			msgs, err := e.svc.Runs.Control(auth.WithPrincipal(context.Background(), controller),
				steer.NewRequest(c.id, c.cmd, c.run, e.clock.Now(), c.payload))
			require.NoError(t, err)
			require.Len(t, msgs, 1, "no ACK: it was never a valid REQUEST")
			assert.Equal(t, steer.CodeBadRequest, result(t, msgs).Code)
			assert.Equal(t, c.message, result(t, msgs).Message)
		})
	}
	t.Run("the service answers a request missing its run with one bad_request RESULT", func(t *testing.T) {
		e := newControlEnv(t)
		msgs, err := e.svc.Runs.Control(auth.WithPrincipal(context.Background(), controller),
			steer.NewRequest("r", steer.CommandPause, "", e.clock.Now(), steer.ControlPayload{}))
		require.NoError(t, err)
		require.Len(t, msgs, 1, "no ACK: it was never a valid REQUEST")
		assert.Equal(t, steer.CodeBadRequest, result(t, msgs).Code)
		assert.Equal(t, "target.run_id is required", result(t, msgs).Message)
	})
	t.Run("messages use the seed's field names byte for byte", func(t *testing.T) {
		e := newControlEnv(t)
		e.state(t, "loop-1703123456-12345", 4, "haiku")
		msgs := e.send(t, controller, "req-pause-001", steer.CommandPause, "loop-1703123456-12345", steer.ControlPayload{})
		b, err := json.Marshal(msgs[0])
		require.NoError(t, err)
		assert.Equal(t, `{"schema":0,"type":"ACK","request_id":"req-pause-001","command":"pause","target":{"run_id":"loop-1703123456-12345"},"timestamp":"2026-11-22T10:00:00Z","payload":{}}`, string(b))
	})
}

func TestInteractionThreshold(t *testing.T) {
	zero, three := 0, 3
	st := memstore.New()
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0), Threshold: &three})
	ctx := auth.WithPrincipal(context.Background(), loopAgent)
	_, _, err := svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Which DB?"})
	require.NoError(t, err, "the global default 3 asks")
	_, err = svc.Runs.SetThreshold(ctx, "run-1", &zero)
	require.NoError(t, err)
	_, _, err = svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Which cache?"})
	require.Equal(t, fault.EREFUSED, fault.Code(err))
	assert.Contains(t, fault.Message(err), "proceed on your own judgement")
	_, _, err = svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
	assert.NoError(t, err, "approvals are never refused by the threshold")
	bad := 6
	_, err = svc.Runs.SetThreshold(ctx, "run-1", &bad)
	assert.ErrorContains(t, err, "interactionThreshold must be a whole number from 0 to 5")
	_, err = svc.Runs.SetThreshold(auth.WithPrincipal(context.Background(), other), "run-1", &three)
	assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "another agent cannot loosen a run it did not start")
	assert.Contains(t, hitl.ThresholdInstruction(0), "Do not ask")
	assert.Contains(t, hitl.ThresholdInstruction(5), "ask a person and wait")
}

func TestMatchRun(t *testing.T) {
	e := newControlEnv(t)
	e.state(t, "loop-10", 1, "haiku")
	e.state(t, "loop-1", 1, "haiku")
	e.state(t, "grind-7", 1, "haiku")
	e.state(t, "claude-3f2b8c1e", 1, "opus")
	e.state(t, "claude-3f2b9d00", 1, "opus")
	e.state(t, "finished-1", 1, "haiku")
	_, err := e.svc.Runs.Publish(auth.WithPrincipal(context.Background(), loopAgent), steer.StateEvent{Event: steer.StateDone, RunID: "finished-1"})
	require.NoError(t, err)
	ctx := auth.WithPrincipal(context.Background(), controller)
	for _, tc := range []struct {
		name    string
		matches []string
		run     string // runhandle.Resolve's
		code    string // runhandle.Resolve's error code
		msg     string
	}{
		{"loop-1", []string{"loop-1"}, "loop-1", "", ""}, // an exact id wins over the runs it prefixes
		{"grind", []string{"grind-7"}, "grind-7", "", ""},
		{"fin", []string{"finished-1"}, "finished-1", "", ""}, // an ended run too
		{"loop", []string{"loop-1", "loop-10"}, "", fault.EINVALID, "loop begins 2 runs (loop-1, loop-10): give more of the id"},
		{"claude-3f2b", []string{"claude-3f2b8c1e", "claude-3f2b9d00"}, "", fault.EINVALID, "claude-3f2b begins 2 runs"},
		{"nothing", []string{}, "", fault.ENOTFOUND, "no run is named nothing or starts with it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runhandle.Match(ctx, e.svc.Runs, tc.name)
			require.NoError(t, err)
			assert.Equal(t, tc.matches, got)
			run, err := runhandle.Resolve(ctx, e.svc.Runs, tc.name)
			assert.Equal(t, tc.run, run)
			assert.Equal(t, tc.code, fault.Code(err))
			if tc.msg != "" {
				assert.Contains(t, fault.Message(err), tc.msg)
			}
		})
	}
	_, err = runhandle.Match(ctx, e.svc.Runs, "bad id!")
	assert.Equal(t, fault.EINVALID, fault.Code(err))
	_, err = runhandle.Match(auth.WithPrincipal(context.Background(), other), e.svc.Runs, "loop")
	assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "an agent that may not list runs may not look them up by prefix")

	t.Run("handles", func(t *testing.T) {
		page, err := e.svc.Runs.Runs(ctx, false, 100, "")
		require.NoError(t, err)
		assert.Equal(t, map[string]string{
			"claude-3f2b8c1e": "claude-3f2b8", // past the floor (claude-3f2b) until unique
			"claude-3f2b9d00": "claude-3f2b9",
			"finished-1":      "finished-1", // the floor (the first word and four characters) is all of it
			"grind-7":         "grind-7",
			"loop-1":          "loop-1", // a prefix of loop-10's id: named whole
			"loop-10":         "loop-10",
		}, page.Handles)
		for id, h := range page.Handles {
			got, err := runhandle.Resolve(ctx, e.svc.Runs, h)
			require.NoError(t, err)
			assert.Equal(t, id, got, "handle %s names its run", h)
		}
	})
	t.Run("many candidates are cut", func(t *testing.T) {
		for i := range runhandle.MaxMatches + 2 {
			e.state(t, fmt.Sprintf("many-%02d", i), 1, "haiku")
		}
		_, err := runhandle.Resolve(ctx, e.svc.Runs, "many")
		assert.Equal(t, fault.EINVALID, fault.Code(err))
		assert.Contains(t, fault.Message(err), "many begins more than 10 runs (many-00, ")
	})
}
