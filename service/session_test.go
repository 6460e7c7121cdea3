package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionStep is the rule of what a session's hook call does in each
// steering state: one row per state and event that differ.
func TestSessionStep(t *testing.T) {
	sess := &hitl.Session{Agent: "Claude Code"}
	running := hitl.RunControl{Status: hitl.RunRunning, Session: sess}
	paused := hitl.RunControl{Status: hitl.RunPaused, PausedBy: "slack:U1", Session: sess}
	redirected := hitl.RunControl{Status: hitl.RunRunning, Instruction: "just fix the test", Session: sess}
	pausedRedirected := paused
	pausedRedirected.Instruction = "just fix the test"
	cancelled := hitl.RunControl{Status: hitl.RunCancelled, Reason: hitl.ReasonUserCancelled, CancelledBy: "api:ops", Session: sess}
	aborted := hitl.RunControl{Status: hitl.RunAborted, Reason: "CRASHED", Session: sess}
	const pausedText = "paused by slack:U1 in hitl — waiting: make no further changes until the run is resumed"
	for _, tc := range []struct {
		name    string
		c       hitl.RunControl
		e       hitl.HookEvent
		expired bool
		action  hitl.HookAction
		reason  string
		instr   string
	}{
		{"running: a tool call proceeds (the policy decides it)", running, hitl.HookPreToolUse, false, hitl.HookProceed, "", ""},
		{"running: a stop proceeds", running, hitl.HookStop, false, hitl.HookProceed, "", ""},
		{"running: SessionEnd ends", running, hitl.HookSessionEnd, false, hitl.HookEnd, "", ""},
		{"paused: a tool call holds", paused, hitl.HookPreToolUse, false, hitl.HookHold, "", ""},
		{"paused: a permission prompt holds", paused, hitl.HookPermissionRequest, false, hitl.HookHold, "", ""},
		{"paused: the next prompt holds", paused, hitl.HookUserPromptSubmit, false, hitl.HookHold, "", ""},
		{"paused: a tool's result holds (the agent would act on it)", paused, hitl.HookPostToolUse, false, hitl.HookHold, "", ""},
		{"paused, hold ran out: the tool call is refused naming who paused", paused, hitl.HookPreToolUse, true, hitl.HookRefuse, pausedText, ""},
		{"paused, hold ran out: the prompt is refused", paused, hitl.HookUserPromptSubmit, true, hitl.HookRefuse, pausedText, ""},
		{"paused: SessionStart only registers", paused, hitl.HookSessionStart, false, hitl.HookProceed, "", ""},
		{"paused: the agent may come to rest", paused, hitl.HookStop, false, hitl.HookProceed, "", ""},
		{"paused: SessionEnd ends", paused, hitl.HookSessionEnd, false, hitl.HookEnd, "", ""},
		{"paused with a redirect: the pause comes first", pausedRedirected, hitl.HookPostToolUse, false, hitl.HookHold, "", ""},
		{"paused with a redirect: a stop comes to rest, the redirect waits for the resume", pausedRedirected, hitl.HookStop, false, hitl.HookProceed, "", ""},
		{"redirect: after a tool call, as context", redirected, hitl.HookPostToolUse, false, hitl.HookInstruct, "", "just fix the test"},
		{"redirect: with the next prompt, as context", redirected, hitl.HookUserPromptSubmit, false, hitl.HookInstruct, "", "just fix the test"},
		{"redirect: at the session's start, as context", redirected, hitl.HookSessionStart, false, hitl.HookInstruct, "", "just fix the test"},
		{"redirect: a stop is blocked so the agent keeps going", redirected, hitl.HookStop, false, hitl.HookKeepGoing, "", "just fix the test"},
		{"redirect: a tool call cannot carry it; it stays queued", redirected, hitl.HookPreToolUse, false, hitl.HookProceed, "", ""},
		{"redirect: nor can a permission prompt", redirected, hitl.HookPermissionRequest, false, hitl.HookProceed, "", ""},
		{"cancelled: every call halts the agent, naming who cancelled", cancelled, hitl.HookPreToolUse, false, hitl.HookHalt, "cancelled by api:ops in hitl", ""},
		{"cancelled: a prompt halts too", cancelled, hitl.HookUserPromptSubmit, false, hitl.HookHalt, "cancelled by api:ops in hitl", ""},
		{"cancelled: a stop halts too", cancelled, hitl.HookStop, false, hitl.HookHalt, "cancelled by api:ops in hitl", ""},
		{"cancelled: SessionEnd just ends", cancelled, hitl.HookSessionEnd, false, hitl.HookEnd, "", ""},
		{"aborted otherwise: halts with the reason", aborted, hitl.HookPostToolUse, false, hitl.HookHalt, "the hitl run has ended (aborted: CRASHED)", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := hitl.SessionStep(tc.c, tc.e, tc.expired)
			assert.Equal(t, tc.action, s.Action)
			assert.Equal(t, tc.reason, s.Reason)
			assert.Equal(t, tc.instr, s.Instruction)
		})
	}
}

func TestSessionIdleness(t *testing.T) {
	last := t0
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	sess := func(idle bool) *hitl.Session { return &hitl.Session{Agent: "Codex", Idle: idle} }
	for _, tc := range []struct {
		name string
		c    hitl.RunControl
		now  time.Time
		want hitl.SessionIdleness
	}{
		{"fresh", hitl.RunControl{Status: hitl.RunRunning, LastStateAt: &last, Session: sess(false)}, at(time.Minute), hitl.SessionAwake},
		{"silent for idle_after: idle", hitl.RunControl{Status: hitl.RunRunning, LastStateAt: &last, Session: sess(false)}, at(10 * time.Minute), hitl.SessionIdle},
		{"already shown idle: nothing to write", hitl.RunControl{Status: hitl.RunRunning, LastStateAt: &last, Session: sess(true)}, at(11 * time.Minute), hitl.SessionAwake},
		{"silent for end_after: ended", hitl.RunControl{Status: hitl.RunRunning, LastStateAt: &last, Session: sess(true)}, at(time.Hour), hitl.SessionGone},
		{"paused and silent: idle, never ended (a person holds it)", hitl.RunControl{Status: hitl.RunPaused, LastStateAt: &last, Session: sess(false)}, at(5 * time.Hour), hitl.SessionIdle},
		{"a loop is not a session", hitl.RunControl{Status: hitl.RunRunning, LastStateAt: &last}, at(5 * time.Hour), hitl.SessionAwake},
		{"an ended session stays as it is", hitl.RunControl{Status: hitl.RunDone, LastStateAt: &last, Session: sess(false)}, at(5 * time.Hour), hitl.SessionAwake},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.c.Idleness(tc.now, 10*time.Minute, time.Hour))
		})
	}
	t.Run("0 turns either off", func(t *testing.T) {
		c := hitl.RunControl{Status: hitl.RunRunning, LastStateAt: &last, Session: sess(false)}
		assert.Equal(t, hitl.SessionAwake, c.Idleness(at(100*time.Hour), 0, 0))
		assert.Equal(t, hitl.SessionIdle, c.Idleness(at(100*time.Hour), time.Minute, 0))
	})
}

var sessionAgent = hitl.TokenPrincipal("claude", nil, "")

type sessionEnv struct {
	*controlEnv
}

func newSessionEnv(t *testing.T) *sessionEnv {
	st := memstore.New()
	clock := clocktest.New(t0)
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock,
		Sessions: service.SessionTimes{IdleAfter: 10 * time.Minute, EndAfter: time.Hour}})
	return &sessionEnv{&controlEnv{st: st, clock: clock, svc: svc}}
}

func (e *sessionEnv) hook(t *testing.T, run string, ev hitl.HookEvent, mod ...func(*hitl.SessionHook)) hitl.HookStep {
	t.Helper()
	h := hitl.SessionHook{RunID: run, Agent: "Claude Code", Event: ev, CWD: "/work/app"}
	for _, m := range mod {
		m(&h)
	}
	s, err := e.svc.Runs.Hook(hitl.WithPrincipal(context.Background(), sessionAgent), h)
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
		assert.Equal(t, hitl.HookProceed, e.hook(t, "claude-s1", hitl.HookSessionStart).Action)
		run := e.run(t, "claude-s1")
		assert.Equal(t, hitl.RunRunning, run.Control.Status)
		assert.Equal(t, "/work/app", run.Control.Session.CWD)
		assert.Equal(t, "Claude Code", run.Control.Session.Agent)
		e.hook(t, "claude-s1", hitl.HookUserPromptSubmit, func(h *hitl.SessionHook) { h.Prompt = "fix the failing test\nin pkg/x" })
		e.hook(t, "claude-s1", hitl.HookUserPromptSubmit, func(h *hitl.SessionHook) { h.Prompt = "and then lint" })
		assert.Equal(t, "fix the failing test", e.run(t, "claude-s1").Control.Session.Title, "the first prompt's first line")
		v := e.run(t, "claude-s1").Version
		e.hook(t, "claude-s1", hitl.HookPreToolUse)
		assert.Greater(t, e.run(t, "claude-s1").Version, v, "a tool call keeps it alive")
		assert.Equal(t, hitl.HookEnd, e.hook(t, "claude-s1", hitl.HookSessionEnd).Action)
		assert.Equal(t, hitl.RunDone, e.run(t, "claude-s1").Control.Status)
		assert.Equal(t, []string{"STATE ", "STATE ", "DONE "}, e.loopEvents(t, "claude-s1"), "a STATE when it starts and when it gets its title, not one per call")
		assert.Equal(t, hitl.HookProceed, e.hook(t, "claude-s1", hitl.HookSessionStart, func(h *hitl.SessionHook) {}).Action, "resumed, it comes back")
		assert.Equal(t, hitl.RunRunning, e.run(t, "claude-s1").Control.Status)
	})
	t.Run("a session whose hooks were wired mid-way starts at its first call", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-s2", hitl.HookPostToolUse)
		assert.Equal(t, hitl.RunRunning, e.run(t, "claude-s2").Control.Status)
	})
	t.Run("another principal cannot report on someone's session", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-s3", hitl.HookSessionStart)
		_, err := e.svc.Runs.Hook(hitl.WithPrincipal(context.Background(), loopAgent), hitl.SessionHook{RunID: "claude-s3", Agent: "Claude Code", Event: hitl.HookPreToolUse})
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
	})
	t.Run("a bad event is refused clearly", func(t *testing.T) {
		e := newSessionEnv(t)
		_, err := e.svc.Runs.Hook(hitl.WithPrincipal(context.Background(), sessionAgent), hitl.SessionHook{RunID: "claude-s4", Agent: "Claude Code", Event: "Notification"})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
		assert.Contains(t, fault.Message(err), `"Notification" is not a session hook event`)
	})
}

func TestSessionSteering(t *testing.T) {
	t.Run("pause is queued, holds the next call, refuses once the hold ran out, resume lets it go", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-p", hitl.HookSessionStart)
		assert.Equal(t, "Session paused: queued, Claude Code holds at its next hook call (a tool call or a prompt)",
			result(t, e.send(t, controller, "r1", hitl.CommandPause, "claude-p", hitl.ControlPayload{})).Message)
		s := e.hook(t, "claude-p", hitl.HookPreToolUse)
		assert.Equal(t, hitl.HookHold, s.Action)
		assert.Equal(t, hitl.HookPreToolUse, e.run(t, "claude-p").Control.Session.Held, "the live message shows it was reached")
		s = e.hook(t, "claude-p", hitl.HookPreToolUse, func(h *hitl.SessionHook) { h.HoldExpired = true })
		assert.Equal(t, hitl.HookRefuse, s.Action)
		assert.Contains(t, s.Reason, "paused by api:ops")
		e.hook(t, "claude-p", hitl.HookPreToolUse)
		assert.Equal(t, "Session resumed: Claude Code goes on from PreToolUse",
			result(t, e.send(t, controller, "r2", hitl.CommandResume, "claude-p", hitl.ControlPayload{})).Message)
		assert.Empty(t, e.run(t, "claude-p").Control.Session.Held, "resumed: nothing shows held, even if the held hook died")
		assert.Equal(t, hitl.HookProceed, e.hook(t, "claude-p", hitl.HookPreToolUse).Action)
		assert.Empty(t, e.run(t, "claude-p").Control.PausedBy)
	})
	t.Run("a hook that died while held does not make the next pause look reached", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-q", hitl.HookSessionStart)
		result(t, e.send(t, controller, "r1", hitl.CommandPause, "claude-q", hitl.ControlPayload{}))
		e.hook(t, "claude-q", hitl.HookPostToolUse) // held; then Claude Code kills the hook
		result(t, e.send(t, controller, "r2", hitl.CommandResume, "claude-q", hitl.ControlPayload{}))
		assert.Contains(t, result(t, e.send(t, controller, "r3", hitl.CommandPause, "claude-q", hitl.ControlPayload{})).Message, "queued")
	})
	t.Run("redirect is handed over once, at the first call that can carry it", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-r", hitl.HookSessionStart)
		assert.Contains(t, result(t, e.send(t, controller, "r1", hitl.CommandRedirect, "claude-r", hitl.ControlPayload{Instruction: "just fix the test"})).Message,
			"Instruction queued: Claude Code gets it at its next step")
		assert.Equal(t, hitl.HookProceed, e.hook(t, "claude-r", hitl.HookPreToolUse).Action)
		s := e.hook(t, "claude-r", hitl.HookPostToolUse)
		assert.Equal(t, hitl.HookInstruct, s.Action)
		assert.Equal(t, "just fix the test", s.Instruction)
		assert.Equal(t, hitl.HookProceed, e.hook(t, "claude-r", hitl.HookPostToolUse).Action, "once")
		result(t, e.send(t, controller, "r2", hitl.CommandRedirect, "claude-r", hitl.ControlPayload{Instruction: "now the docs"}))
		s = e.hook(t, "claude-r", hitl.HookStop)
		assert.Equal(t, hitl.HookKeepGoing, s.Action)
		assert.Equal(t, "now the docs", s.Instruction)
		assert.Equal(t, hitl.HookProceed, e.hook(t, "claude-r", hitl.HookStop).Action)
	})
	t.Run("a redirect to a paused session says its instruction is queued, not that the session was paused", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-rp", hitl.HookSessionStart)
		result(t, e.send(t, controller, "r1", hitl.CommandPause, "claude-rp", hitl.ControlPayload{}))
		assert.Equal(t, "Instruction queued: Claude Code gets it at its next step once the session is resumed (it stays paused)",
			result(t, e.send(t, controller, "r2", hitl.CommandRedirect, "claude-rp", hitl.ControlPayload{Instruction: "just fix the test"})).Message)
		e.hook(t, "claude-rp", hitl.HookPreToolUse) // held
		assert.Equal(t, "Instruction queued: Claude Code gets it at its next step once the session is resumed (it stays paused)",
			result(t, e.send(t, controller, "r3", hitl.CommandRedirect, "claude-rp", hitl.ControlPayload{Instruction: "and the docs"})).Message, "held too")
	})
	t.Run("cancel ends the run ABORT USER_CANCELLED and halts every later call, naming who", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-c", hitl.HookSessionStart)
		assert.Equal(t, "Session cancelled: Claude Code is stopped at its next hook call",
			result(t, e.send(t, controller, "r1", hitl.CommandCancel, "claude-c", hitl.ControlPayload{})).Message)
		s := e.hook(t, "claude-c", hitl.HookPreToolUse)
		assert.Equal(t, hitl.HookHalt, s.Action)
		assert.Equal(t, "cancelled by api:ops in hitl", s.Reason)
		assert.Equal(t, hitl.HookHalt, e.hook(t, "claude-c", hitl.HookSessionStart).Action, "a cancelled session does not come back")
		assert.Equal(t, []string{"STATE ", "ACK cancel", "RESULT cancel", "ABORT USER_CANCELLED"}, e.loopEvents(t, "claude-c"), "RESULT before ABORT")
	})
	t.Run("escalate fails: a hook cannot switch models", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-e", hitl.HookSessionStart, func(h *hitl.SessionHook) { h.Model = "claude-sonnet" })
		msgs := e.send(t, controller, "r1", hitl.CommandEscalate, "claude-e", hitl.ControlPayload{Model: "opus"})
		code, failed := msgs[len(msgs)-1].Failed()
		require.True(t, failed)
		assert.Equal(t, hitl.CodeUnsupported, code)
		assert.Contains(t, msgs[len(msgs)-1].Payload.Message, "Claude Code cannot switch models from a hook")
		assert.Equal(t, "claude-sonnet", e.run(t, "claude-e").Control.Model, "nothing changed")
	})
	t.Run("steering a session takes the control scope, like a loop", func(t *testing.T) {
		e := newSessionEnv(t)
		e.hook(t, "claude-f", hitl.HookSessionStart)
		code, failed := e.send(t, sessionAgent, "r1", hitl.CommandPause, "claude-f", hitl.ControlPayload{})[1].Failed()
		assert.True(t, failed)
		assert.Equal(t, hitl.CodeForbidden, code)
	})
}

func TestSessionSweep(t *testing.T) {
	ctx := context.Background()
	e := newSessionEnv(t)
	e.hook(t, "claude-i", hitl.HookSessionStart)
	e.hook(t, "claude-k", hitl.HookSessionStart)
	seq, err := e.st.LastSeq(ctx)
	require.NoError(t, err)
	n, err := e.svc.Runs.SweepSessions(ctx)
	require.NoError(t, err)
	assert.Zero(t, n)
	after, err := e.st.LastSeq(ctx)
	require.NoError(t, err)
	assert.Equal(t, seq, after, "nothing due: nothing written")

	e.clock.Add(5 * time.Minute)
	e.hook(t, "claude-k", hitl.HookPreToolUse) // k is busy, i is silent
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

	e.hook(t, "claude-i", hitl.HookUserPromptSubmit)
	assert.False(t, e.run(t, "claude-i").Control.Session.Idle, "a call wakes it")

	e.clock.Add(time.Hour)
	n, err = e.svc.Runs.SweepSessions(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	i := e.run(t, "claude-i")
	assert.Equal(t, hitl.RunAborted, i.Control.Status)
	assert.Equal(t, hitl.ReasonIdle, i.Control.Reason)
	assert.Equal(t, hitl.HookEnd, e.hook(t, "claude-i", hitl.HookSessionEnd).Action)
	assert.Equal(t, hitl.RunAborted, e.run(t, "claude-i").Control.Status, "a SessionEnd brings nothing back")
	assert.Equal(t, hitl.HookProceed, e.hook(t, "claude-i", hitl.HookUserPromptSubmit).Action, "back from lunch: the session comes back")
	assert.Equal(t, hitl.RunRunning, e.run(t, "claude-i").Control.Status)
}
