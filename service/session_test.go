package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionStep is the rule of what a session's hook call does in each
// steering state: one row per state and event that differ.
func TestSessionStep(t *testing.T) {
	sess := &steer.Session{Agent: "Claude Code"}
	running := steer.RunControl{Status: steer.RunRunning, Session: sess}
	paused := steer.RunControl{Status: steer.RunPaused, PausedBy: "slack:U1", Session: sess}
	redirected := steer.RunControl{Status: steer.RunRunning, Instruction: "just fix the test", Session: sess}
	pausedRedirected := paused
	pausedRedirected.Instruction = "just fix the test"
	cancelled := steer.RunControl{Status: steer.RunCancelled, Reason: steer.ReasonUserCancelled, CancelledBy: "api:ops", Session: sess}
	aborted := steer.RunControl{Status: steer.RunAborted, Reason: "CRASHED", Session: sess}
	const pausedText = "paused by slack:U1 in hitl — waiting: make no further changes until the run is resumed"
	for _, tc := range []struct {
		name    string
		c       steer.RunControl
		e       steer.HookEvent
		expired bool
		action  steer.HookAction
		reason  string
		instr   string
	}{
		{"running: a tool call proceeds (the policy decides it)", running, steer.HookPreToolUse, false, steer.HookProceed, "", ""},
		{"running: a stop proceeds", running, steer.HookStop, false, steer.HookProceed, "", ""},
		{"running: SessionEnd ends", running, steer.HookSessionEnd, false, steer.HookEnd, "", ""},
		{"paused: a tool call holds", paused, steer.HookPreToolUse, false, steer.HookHold, "", ""},
		{"paused: a permission prompt holds", paused, steer.HookPermissionRequest, false, steer.HookHold, "", ""},
		{"paused: the next prompt holds", paused, steer.HookUserPromptSubmit, false, steer.HookHold, "", ""},
		{"paused: a tool's result holds (the agent would act on it)", paused, steer.HookPostToolUse, false, steer.HookHold, "", ""},
		{"paused, hold ran out: the tool call is refused naming who paused", paused, steer.HookPreToolUse, true, steer.HookRefuse, pausedText, ""},
		{"paused, hold ran out: the prompt is refused", paused, steer.HookUserPromptSubmit, true, steer.HookRefuse, pausedText, ""},
		{"paused: SessionStart only registers", paused, steer.HookSessionStart, false, steer.HookProceed, "", ""},
		{"paused: the agent may come to rest", paused, steer.HookStop, false, steer.HookProceed, "", ""},
		{"paused: SessionEnd ends", paused, steer.HookSessionEnd, false, steer.HookEnd, "", ""},
		{"paused with a redirect: the pause comes first", pausedRedirected, steer.HookPostToolUse, false, steer.HookHold, "", ""},
		{"paused with a redirect: a stop comes to rest, the redirect waits for the resume", pausedRedirected, steer.HookStop, false, steer.HookProceed, "", ""},
		{"redirect: after a tool call, as context", redirected, steer.HookPostToolUse, false, steer.HookInstruct, "", "just fix the test"},
		{"redirect: with the next prompt, as context", redirected, steer.HookUserPromptSubmit, false, steer.HookInstruct, "", "just fix the test"},
		{"redirect: at the session's start, as context", redirected, steer.HookSessionStart, false, steer.HookInstruct, "", "just fix the test"},
		{"redirect: a stop is blocked so the agent keeps going", redirected, steer.HookStop, false, steer.HookKeepGoing, "", "just fix the test"},
		{"redirect: a tool call cannot carry it; it stays queued", redirected, steer.HookPreToolUse, false, steer.HookProceed, "", ""},
		{"redirect: nor can a permission prompt", redirected, steer.HookPermissionRequest, false, steer.HookProceed, "", ""},
		{"cancelled: every call halts the agent, naming who cancelled", cancelled, steer.HookPreToolUse, false, steer.HookHalt, "cancelled by api:ops in hitl", ""},
		{"cancelled: a prompt halts too", cancelled, steer.HookUserPromptSubmit, false, steer.HookHalt, "cancelled by api:ops in hitl", ""},
		{"cancelled: a stop halts too", cancelled, steer.HookStop, false, steer.HookHalt, "cancelled by api:ops in hitl", ""},
		{"cancelled: SessionEnd just ends", cancelled, steer.HookSessionEnd, false, steer.HookEnd, "", ""},
		{"aborted otherwise: halts with the reason", aborted, steer.HookPostToolUse, false, steer.HookHalt, "the hitl run has ended (aborted: CRASHED)", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := steer.SessionStep(tc.c, tc.e, tc.expired)
			assert.Equal(t, tc.action, s.Action)
			assert.Equal(t, tc.reason, s.Reason)
			assert.Equal(t, tc.instr, s.Instruction)
		})
	}
}

func TestSessionIdleness(t *testing.T) {
	last := t0
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	sess := func(idle bool) *steer.Session { return &steer.Session{Agent: "Codex", Idle: idle} }
	for _, tc := range []struct {
		name string
		c    steer.RunControl
		now  time.Time
		want steer.SessionIdleness
	}{
		{"fresh", steer.RunControl{Status: steer.RunRunning, LastStateAt: &last, Session: sess(false)}, at(time.Minute), steer.SessionAwake},
		{"silent for idle_after: idle", steer.RunControl{Status: steer.RunRunning, LastStateAt: &last, Session: sess(false)}, at(10 * time.Minute), steer.SessionIdle},
		{"already shown idle: nothing to write", steer.RunControl{Status: steer.RunRunning, LastStateAt: &last, Session: sess(true)}, at(11 * time.Minute), steer.SessionAwake},
		{"silent for end_after: ended", steer.RunControl{Status: steer.RunRunning, LastStateAt: &last, Session: sess(true)}, at(time.Hour), steer.SessionGone},
		{"paused and silent: idle, never ended (a person holds it)", steer.RunControl{Status: steer.RunPaused, LastStateAt: &last, Session: sess(false)}, at(5 * time.Hour), steer.SessionIdle},
		{"a loop is not a session", steer.RunControl{Status: steer.RunRunning, LastStateAt: &last}, at(5 * time.Hour), steer.SessionAwake},
		{"an ended session stays as it is", steer.RunControl{Status: steer.RunDone, LastStateAt: &last, Session: sess(false)}, at(5 * time.Hour), steer.SessionAwake},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.c.Idleness(tc.now, 10*time.Minute, time.Hour))
		})
	}
	t.Run("0 turns either off", func(t *testing.T) {
		c := steer.RunControl{Status: steer.RunRunning, LastStateAt: &last, Session: sess(false)}
		assert.Equal(t, steer.SessionAwake, c.Idleness(at(100*time.Hour), 0, 0))
		assert.Equal(t, steer.SessionIdle, c.Idleness(at(100*time.Hour), time.Minute, 0))
	})
}

var sessionAgent = auth.TokenPrincipal("claude", nil, "")

type sessionEnv struct {
	*controlEnv
}

func newSessionEnv(t *testing.T) *sessionEnv {
	st := memstore.New()
	clock := clocktest.New(t0)
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock,
		Sessions: steer.SessionTimes{IdleAfter: 10 * time.Minute, EndAfter: time.Hour}})
	return &sessionEnv{&controlEnv{st: st, clock: clock, svc: svc}}
}

func (e *sessionEnv) hook(t *testing.T, run string, ev steer.HookEvent, mod ...func(*steer.SessionHook)) steer.HookStep {
	t.Helper()
	h := steer.SessionHook{RunID: run, Agent: "Claude Code", Event: ev, CWD: "/work/app"}
	for _, m := range mod {
		m(&h)
	}
	s, err := e.svc.Runs.Hook(auth.WithPrincipal(context.Background(), sessionAgent), h)
	require.NoError(t, err)
	return s
}

func (e *sessionEnv) loopEvents(t *testing.T, run string) []string {
	t.Helper()
	evs, _, err := e.st.RunEvents(context.Background(), run, 0, 0)
	require.NoError(t, err)
	var out []string
	for _, ev := range evs {
		switch {
		case ev.State != nil:
			out = append(out, string(ev.State.Event)+" "+ev.State.Reason)
		case ev.Control != nil:
			out = append(out, string(ev.Control.Type)+" "+string(ev.Control.Command))
		}
	}
	return out
}

func TestSessionLifecycle(t *testing.T) {
	t.Run("SessionStart starts the run; the first prompt names it; SessionEnd ends it DONE", func(t *testing.T) {
		e := newSessionEnv(t)
		assert.Equal(t, steer.HookProceed, e.hook(t, "claude-s1", steer.HookSessionStart).Action)
		run := e.run(t, "claude-s1")
		assert.Equal(t, steer.RunRunning, run.Control.Status)
		assert.Equal(t, "/work/app", run.Control.Session.CWD)
		assert.Equal(t, "Claude Code", run.Control.Session.Agent)
		e.hook(t, "claude-s1", steer.HookUserPromptSubmit, func(h *steer.SessionHook) { h.Prompt = "fix the failing test\nin pkg/x" })
		e.hook(t, "claude-s1", steer.HookUserPromptSubmit, func(h *steer.SessionHook) { h.Prompt = "and then lint" })
		assert.Equal(t, "fix the failing test", e.run(t, "claude-s1").Control.Session.Title, "the first prompt's first line")
		v := e.run(t, "claude-s1").Version
		e.hook(t, "claude-s1", steer.HookPreToolUse)
		assert.Greater(t, e.run(t, "claude-s1").Version, v, "a tool call keeps it alive")
		assert.Equal(t, steer.HookEnd, e.hook(t, "claude-s1", steer.HookSessionEnd).Action)
		assert.Equal(t, steer.RunDone, e.run(t, "claude-s1").Control.Status)
		assert.Equal(t, []string{"STATE ", "STATE ", "DONE "}, e.loopEvents(t, "claude-s1"), "a STATE when it starts and when it gets its title, not one per call")
		assert.Equal(t, steer.HookProceed, e.hook(t, "claude-s1", steer.HookSessionStart, func(h *steer.SessionHook) {}).Action, "resumed, it comes back")
		assert.Equal(t, steer.RunRunning, e.run(t, "claude-s1").Control.Status)
	})
	t.Run("a session whose hooks were wired mid-way starts at its first call", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-s2", steer.HookPostToolUse)
		assert.Equal(t, steer.RunRunning, e.run(t, "claude-s2").Control.Status)
	})
	t.Run("another principal cannot report on someone's session", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-s3", steer.HookSessionStart)
		_, err := e.svc.Runs.Hook(auth.WithPrincipal(context.Background(), loopAgent), steer.SessionHook{RunID: "claude-s3", Agent: "Claude Code", Event: steer.HookPreToolUse})
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
	})
	t.Run("a bad event is refused clearly", func(t *testing.T) {
		e := newSessionEnv(t)
		_, err := e.svc.Runs.Hook(auth.WithPrincipal(context.Background(), sessionAgent), steer.SessionHook{RunID: "claude-s4", Agent: "Claude Code", Event: "Notification"})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
		assert.Contains(t, fault.Message(err), `"Notification" is not a session hook event`)
	})
}

func TestSessionSteering(t *testing.T) {
	t.Run("pause is queued, holds the next call, refuses once the hold ran out, resume lets it go", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-p", steer.HookSessionStart)
		assert.Equal(t, "Session paused: queued, Claude Code holds at its next hook call (a tool call or a prompt)",
			result(t, e.send(t, controller, "r1", steer.CommandPause, "claude-p", steer.ControlPayload{})).Message)
		s := e.hook(t, "claude-p", steer.HookPreToolUse)
		assert.Equal(t, steer.HookHold, s.Action)
		assert.Equal(t, steer.HookPreToolUse, e.run(t, "claude-p").Control.Session.Held, "the live message shows it was reached")
		s = e.hook(t, "claude-p", steer.HookPreToolUse, func(h *steer.SessionHook) { h.HoldExpired = true })
		assert.Equal(t, steer.HookRefuse, s.Action)
		assert.Contains(t, s.Reason, "paused by api:ops")
		e.hook(t, "claude-p", steer.HookPreToolUse)
		assert.Equal(t, "Session resumed: Claude Code goes on from PreToolUse",
			result(t, e.send(t, controller, "r2", steer.CommandResume, "claude-p", steer.ControlPayload{})).Message)
		assert.Empty(t, e.run(t, "claude-p").Control.Session.Held, "resumed: nothing shows held, even if the held hook died")
		assert.Equal(t, steer.HookProceed, e.hook(t, "claude-p", steer.HookPreToolUse).Action)
		assert.Empty(t, e.run(t, "claude-p").Control.PausedBy)
	})
	t.Run("a hook that died while held does not make the next pause look reached", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-q", steer.HookSessionStart)
		result(t, e.send(t, controller, "r1", steer.CommandPause, "claude-q", steer.ControlPayload{}))
		e.hook(t, "claude-q", steer.HookPostToolUse) // held; then Claude Code kills the hook
		result(t, e.send(t, controller, "r2", steer.CommandResume, "claude-q", steer.ControlPayload{}))
		assert.Contains(t, result(t, e.send(t, controller, "r3", steer.CommandPause, "claude-q", steer.ControlPayload{})).Message, "queued")
	})
	t.Run("redirect is handed over once, at the first call that can carry it", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-r", steer.HookSessionStart)
		assert.Contains(t, result(t, e.send(t, controller, "r1", steer.CommandRedirect, "claude-r", steer.ControlPayload{Instruction: "just fix the test"})).Message,
			"Instruction queued: Claude Code gets it at its next step")
		assert.Equal(t, steer.HookProceed, e.hook(t, "claude-r", steer.HookPreToolUse).Action)
		s := e.hook(t, "claude-r", steer.HookPostToolUse)
		assert.Equal(t, steer.HookInstruct, s.Action)
		assert.Equal(t, "just fix the test", s.Instruction)
		assert.Equal(t, steer.HookProceed, e.hook(t, "claude-r", steer.HookPostToolUse).Action, "once")
		result(t, e.send(t, controller, "r2", steer.CommandRedirect, "claude-r", steer.ControlPayload{Instruction: "now the docs"}))
		s = e.hook(t, "claude-r", steer.HookStop)
		assert.Equal(t, steer.HookKeepGoing, s.Action)
		assert.Equal(t, "now the docs", s.Instruction)
		assert.Equal(t, steer.HookProceed, e.hook(t, "claude-r", steer.HookStop).Action)
	})
	t.Run("a redirect to a paused session says its instruction is queued, not that the session was paused", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-rp", steer.HookSessionStart)
		result(t, e.send(t, controller, "r1", steer.CommandPause, "claude-rp", steer.ControlPayload{}))
		assert.Equal(t, "Instruction queued: Claude Code gets it at its next step once the session is resumed (it stays paused)",
			result(t, e.send(t, controller, "r2", steer.CommandRedirect, "claude-rp", steer.ControlPayload{Instruction: "just fix the test"})).Message)
		e.hook(t, "claude-rp", steer.HookPreToolUse) // held
		assert.Equal(t, "Instruction queued: Claude Code gets it at its next step once the session is resumed (it stays paused)",
			result(t, e.send(t, controller, "r3", steer.CommandRedirect, "claude-rp", steer.ControlPayload{Instruction: "and the docs"})).Message, "held too")
	})
	t.Run("cancel ends the run ABORT USER_CANCELLED and halts every later call, naming who", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-c", steer.HookSessionStart)
		assert.Equal(t, "Session cancelled: Claude Code is stopped at its next hook call",
			result(t, e.send(t, controller, "r1", steer.CommandCancel, "claude-c", steer.ControlPayload{})).Message)
		s := e.hook(t, "claude-c", steer.HookPreToolUse)
		assert.Equal(t, steer.HookHalt, s.Action)
		assert.Equal(t, "cancelled by api:ops in hitl", s.Reason)
		assert.Equal(t, steer.HookHalt, e.hook(t, "claude-c", steer.HookSessionStart).Action, "a cancelled session does not come back")
		assert.Equal(t, []string{"STATE ", "ACK cancel", "RESULT cancel", "ABORT USER_CANCELLED"}, e.loopEvents(t, "claude-c"), "RESULT before ABORT")
	})
	t.Run("escalate fails: a hook cannot switch models", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-e", steer.HookSessionStart, func(h *steer.SessionHook) { h.Model = "claude-sonnet" })
		msgs := e.send(t, controller, "r1", steer.CommandEscalate, "claude-e", steer.ControlPayload{Model: "opus"})
		code, failed := msgs[len(msgs)-1].Failed()
		require.True(t, failed)
		assert.Equal(t, steer.CodeUnsupported, code)
		assert.Contains(t, msgs[len(msgs)-1].Payload.Message, "Claude Code cannot switch models from a hook")
		assert.Equal(t, "claude-sonnet", e.run(t, "claude-e").Control.Model, "nothing changed")
	})
	t.Run("steering a session takes the control scope, like a loop", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-f", steer.HookSessionStart)
		code, failed := e.send(t, sessionAgent, "r1", steer.CommandPause, "claude-f", steer.ControlPayload{})[1].Failed()
		assert.True(t, failed)
		assert.Equal(t, steer.CodeForbidden, code)
	})
}

func TestSessionSweep(t *testing.T) {
	ctx := context.Background()
	e := newSessionEnv(t)
	e.hook(t, "claude-i", steer.HookSessionStart)
	e.hook(t, "claude-k", steer.HookSessionStart)
	seq, err := e.st.LastSeq(ctx)
	require.NoError(t, err)
	n, err := e.svc.Runs.SweepSessions(ctx)
	require.NoError(t, err)
	assert.Zero(t, n)
	after, err := e.st.LastSeq(ctx)
	require.NoError(t, err)
	assert.Equal(t, seq, after, "nothing due: nothing written")

	e.clock.Add(5 * time.Minute)
	e.hook(t, "claude-k", steer.HookPreToolUse) // k is busy, i is silent
	e.clock.Add(5 * time.Minute)
	n, err = e.svc.Runs.SweepSessions(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.True(t, e.run(t, "claude-i").Control.Session.Idle)
	assert.False(t, e.run(t, "claude-k").Control.Session.Idle)
	v := e.run(t, "claude-i").Version
	n, err = e.svc.Runs.SweepSessions(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "the next sweep within a tenth of the idle time reads nothing")
	e.clock.Add(time.Minute)
	n, err = e.svc.Runs.SweepSessions(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "already idle: nothing written")
	assert.Equal(t, v, e.run(t, "claude-i").Version)

	e.hook(t, "claude-i", steer.HookUserPromptSubmit)
	assert.False(t, e.run(t, "claude-i").Control.Session.Idle, "a call wakes it")

	e.clock.Add(time.Hour)
	n, err = e.svc.Runs.SweepSessions(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	i := e.run(t, "claude-i")
	assert.Equal(t, steer.RunAborted, i.Control.Status)
	assert.Equal(t, steer.ReasonIdle, i.Control.Reason)
	assert.Equal(t, steer.HookEnd, e.hook(t, "claude-i", steer.HookSessionEnd).Action)
	assert.Equal(t, steer.RunAborted, e.run(t, "claude-i").Control.Status, "a SessionEnd brings nothing back")
	assert.Equal(t, steer.HookProceed, e.hook(t, "claude-i", steer.HookUserPromptSubmit).Action, "back from lunch: the session comes back")
	assert.Equal(t, steer.RunRunning, e.run(t, "claude-i").Control.Status)
}
