package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookJSON parses a hook's whole stdout (continue, stopReason, decision,
// reason, hookSpecificOutput); an empty stdout is nil: the agent goes on
// as it would without the hook.
func hookJSON(t *testing.T, r cliResult) map[string]any {
	t.Helper()
	require.Equal(t, 0, r.code, "hooks exit 0: %s", r.stderr)
	if r.stdout == "" {
		return nil
	}
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), "stdout is JSON: %q", r.stdout)
	return out
}

// specific is the hookSpecificOutput of a hook's output.
func specific(t *testing.T, out map[string]any) map[string]any {
	t.Helper()
	s, ok := out["hookSpecificOutput"].(map[string]any)
	require.True(t, ok, "hookSpecificOutput in %v", out)
	return s
}

// awaitRun waits until run id satisfies cond and returns it.
func awaitRun(t *testing.T, m *Main, id string, cond func(*hitl.Run) bool) *hitl.Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 10*time.Second)
	defer cancel()
	var seen uint64
	for {
		r, err := m.Service.Runs.WaitRun(ctx, id, seen)
		require.NoError(t, err, "run %s never got there", id)
		if cond(r) {
			return r
		}
		seen = r.Version
	}
}

func heldAt(e steer.HookEvent) func(*hitl.Run) bool {
	return func(r *hitl.Run) bool { return r.Control.Session != nil && r.Control.Session.Held == e }
}

// pausedFor pauses run for test t and resumes it when t ends, even when
// t fails, so that the next subtest's hook calls are not held.
func pausedFor(ctx context.Context, t *testing.T, m *Main, run string) {
	t.Helper()
	require.Equal(t, 0, cli(ctx, m, "", "pause", run).code)
	t.Cleanup(func() { assert.Equal(t, 0, cli(ctx, m, "", "resume", run).code) })
}

// heldOut runs `hitl hook ARGS` with event ev on paused run, waits until
// the service holds the call at held, lets the hook's --wait run out and
// returns the hook's output.
func heldOut(ctx context.Context, t *testing.T, m *Main, run string, held steer.HookEvent, ev string, args ...string) map[string]any {
	t.Helper()
	tm := newManualTimer()
	ch := hookRun(ctx, m, cliOpts{after: tm.after}, ev, args...)
	tm.waited(t)
	awaitRun(t, m, run, heldAt(held))
	tm.fire <- time.Now()
	return hookJSON(t, result(t, ch))
}

// sessionEvents builds a session's hook events from testdata/hooks.
type sessionEvents struct {
	t  *testing.T
	id string
}

func (s sessionEvents) event(file string, set ...map[string]any) string {
	s.t.Helper()
	all := map[string]any{"session_id": s.id}
	for _, m := range set {
		for k, v := range m {
			all[k] = v
		}
	}
	return hookEvent(s.t, file, all)
}

// TestHookClaudeSessionFromCLI drives a whole Claude Code session through
// `hitl hook claude`, with Claude Code's documented payloads, while a
// person pauses, resumes, redirects, escalates and cancels it with the
// CLI; it asserts the JSON Claude Code acts on.
func TestHookClaudeSessionFromCLI(t *testing.T) {
	m := startMain(t, hookPolicy, unlimitedSteering)
	ctx := context.Background()
	s := sessionEvents{t, "cli-1"}
	const run = "claude-cli-1"
	hook := func(ev string) map[string]any { t.Helper(); return hookJSON(t, cli(ctx, m, ev, "hook", "claude")) }
	hitlCLI := func(args ...string) cliResult { t.Helper(); return cli(ctx, m, "", args...) }

	assert.Nil(t, hook(s.event("claude_sessionstart.json")), "SessionStart: nothing to say")
	r := awaitRun(t, m, run, func(r *hitl.Run) bool { return r.Control.Session != nil })
	assert.Equal(t, steer.RunRunning, r.Control.Status)
	assert.Equal(t, "/home/dev/app", r.Control.Session.CWD)
	assert.Equal(t, "claude-sonnet-4-5-20250929", r.Control.Model)
	assert.Nil(t, hook(s.event("claude_userpromptsubmit.json")))
	assert.Equal(t, "Fix the failing test in pkg/billing", awaitRun(t, m, run, func(*hitl.Run) bool { return true }).Control.Session.Title)
	runs := hitlCLI("runs").stdout
	assert.Contains(t, runs, "claude-cli-1 ", "hitl runs shows the session by its handle (an id of 12 characters is its own)")
	assert.Contains(t, runs, "Fix the failing tes", "hitl runs names the session's task")
	assert.Nil(t, hook(s.event("claude_pretooluse_read.json")), "not held: the default policy's read goes on to Claude Code")

	t.Run("pause is queued; the next tool call holds until resume, then is decided", func(t *testing.T) {
		p := hitlCLI("pause", run)
		require.Equal(t, 0, p.code, p.stderr)
		assert.Contains(t, p.stdout, "Session paused: queued, Claude Code holds at its next hook call")
		assert.Contains(t, hitlCLI("runs").stdout, "paused (queued for the next hook call)")
		tm := newManualTimer()
		ch := hookRun(ctx, m, cliOpts{after: tm.after}, s.event("claude_pretooluse_read.json"), "claude", "--wait", "5m")
		assert.Equal(t, 5*time.Minute, tm.waited(t), "held for up to --wait")
		awaitRun(t, m, run, heldAt(steer.HookPreToolUse))
		assert.Contains(t, hitlCLI("runs").stdout, "paused (held at PreToolUse)")
		res := hitlCLI("resume", run)
		assert.Contains(t, res.stdout, "Session resumed: Claude Code goes on from PreToolUse")
		out := hookJSON(t, result(t, ch))
		assert.Nil(t, out, "resumed: a read only the default policy allows gets no decision (Claude Code's own permissions)")
	})
	t.Run("still paused when --wait runs out: the tool is denied naming who paused", func(t *testing.T) {
		pausedFor(ctx, t, m, run)
		sp := specific(t, heldOut(ctx, t, m, run, steer.HookPreToolUse, s.event("claude_pretooluse_bash.json"), "claude", "--wait", "5m"))
		assert.Equal(t, "deny", sp["permissionDecision"])
		assert.Contains(t, sp["permissionDecisionReason"], "paused by local in hitl — waiting")
		assert.Empty(t, awaitPendingNone(t, m, run), "nobody was asked about a tool the pause denied")
	})
	t.Run("a paused prompt is blocked with the reason once the hold runs out", func(t *testing.T) {
		pausedFor(ctx, t, m, run)
		out := heldOut(ctx, t, m, run, steer.HookUserPromptSubmit, s.event("claude_userpromptsubmit.json"), "claude", "--wait", "5m")
		assert.Equal(t, "block", out["decision"])
		assert.Contains(t, out["reason"], "paused by local")
	})
	t.Run("redirect reaches the model once: as context after the next tool call", func(t *testing.T) {
		rd := hitlCLI("redirect", run, "stop refactoring, just fix the failing test")
		assert.Contains(t, rd.stdout, "Instruction queued: Claude Code gets it at its next step")
		pre := hook(s.event("claude_pretooluse_read.json"))
		assert.Nil(t, pre, "a tool call cannot carry it: still queued")
		post := hook(s.event("claude_posttooluse_bash.json"))
		sp := specific(t, post)
		assert.Equal(t, "PostToolUse", sp["hookEventName"])
		assert.Contains(t, sp["additionalContext"], "stop refactoring, just fix the failing test")
		assert.Nil(t, hook(s.event("claude_posttooluse_bash.json")), "once")
	})
	t.Run("redirect when the agent stops: Stop is blocked with the instruction, once", func(t *testing.T) {
		require.Equal(t, 0, hitlCLI("redirect", run, "now update the changelog").code)
		out := hook(s.event("claude_stop.json"))
		assert.Equal(t, "block", out["decision"])
		assert.Contains(t, out["reason"], "now update the changelog")
		assert.Nil(t, hook(s.event("claude_stop.json", map[string]any{"stop_hook_active": true})))
	})
	t.Run("escalate fails clearly: a hook cannot switch Claude Code's model", func(t *testing.T) {
		r := hitlCLI("escalate", run, "--model", "opus")
		assert.Equal(t, exitBadState, r.code)
		assert.Contains(t, r.stderr, "unsupported")
		assert.Contains(t, r.stderr, "cannot switch models from a hook")
	})
	t.Run("with --decide-tools=false a tool call is left to Claude Code's permissions, and still steered", func(t *testing.T) {
		assert.Nil(t, hookJSON(t, cli(ctx, m, s.event("claude_pretooluse_bash.json"), "hook", "claude", "--decide-tools=false")))
		assert.Empty(t, awaitPendingNone(t, m, run), "nobody asked")
		pausedFor(ctx, t, m, run)
		out := heldOut(ctx, t, m, run, steer.HookPreToolUse, s.event("claude_pretooluse_bash.json"), "claude", "--decide-tools=false", "--wait", "5m")
		assert.Equal(t, "deny", specific(t, out)["permissionDecision"])
	})
	t.Run("SessionEnd ends the run DONE", func(t *testing.T) {
		assert.Nil(t, hook(s.event("claude_sessionend.json")))
		assert.Equal(t, steer.RunDone, awaitRun(t, m, run, func(r *hitl.Run) bool { return r.Control.Status.Ended() }).Control.Status)
	})
}

// unlimitedSteering lifts the control rate limit: one person steers a
// whole session here, faster than a person would.
func unlimitedSteering(c *config.Config, _ *Main) { c.RateLimits.ControlPerMinute = 0 }

// awaitPendingNone returns the run's pending questions (none expected).
func awaitPendingNone(t *testing.T, m *Main, run string) []*hitl.Question {
	t.Helper()
	qs, err := m.Service.Questions.Questions(principaltest.As(context.Background(), "admin:test"), hitl.QuestionFilter{RunID: run, Status: hitl.StatusPending})
	require.NoError(t, err)
	return qs
}

func TestHookClaudeSessionCancelledFromCLI(t *testing.T) {
	m := startMain(t, hookPolicy)
	ctx := context.Background()
	s := sessionEvents{t, "cli-2"}
	const run = "claude-cli-2"
	hook := func(ev string) map[string]any { t.Helper(); return hookJSON(t, cli(ctx, m, ev, "hook", "claude")) }

	assert.Nil(t, hook(s.event("claude_sessionstart.json")))
	require.Equal(t, 0, cli(ctx, m, "", "pause", run).code)
	tm := newManualTimer()
	ch := hookRun(ctx, m, cliOpts{after: tm.after}, s.event("claude_pretooluse_bash.json"), "claude", "--wait", "5m")
	tm.waited(t)
	awaitRun(t, m, run, heldAt(steer.HookPreToolUse))

	c := cli(ctx, m, "", "cancel", run)
	require.Equal(t, 0, c.code, c.stderr)
	assert.Contains(t, c.stdout, "Session cancelled: Claude Code is stopped at its next hook call")
	out := hookJSON(t, result(t, ch))
	assert.Equal(t, false, out["continue"], "the held call wakes and stops Claude Code")
	assert.Equal(t, "cancelled by local in hitl", out["stopReason"])
	assert.Equal(t, "deny", specific(t, out)["permissionDecision"], "and the tool does not run")

	r := awaitRun(t, m, run, func(r *hitl.Run) bool { return true })
	assert.Equal(t, steer.RunCancelled, r.Control.Status)
	assert.Equal(t, steer.ReasonUserCancelled, r.Control.Reason)
	evs, _, err := m.Service.Log.RunEvents(principaltest.As(ctx, "admin:test"), run, 0, 0)
	require.NoError(t, err)
	var aborts []string
	for _, ev := range evs {
		if ev.State != nil && ev.State.Event == steer.StateAbort {
			aborts = append(aborts, ev.State.Reason)
		}
	}
	assert.Equal(t, []string{steer.ReasonUserCancelled}, aborts, "ABORT USER_CANCELLED on loop:current")

	for _, f := range []string{"claude_userpromptsubmit.json", "claude_posttooluse_bash.json", "claude_stop.json"} {
		out := hook(s.event(f))
		assert.Equal(t, false, out["continue"], f)
		assert.Equal(t, "cancelled by local in hitl", out["stopReason"], f)
	}
	assert.Nil(t, hook(s.event("claude_sessionend.json")))
}

// TestHookCodexSession drives a Codex session through the hooks Codex has
// (no SessionEnd: the session ends when it falls silent).
func TestHookCodexSession(t *testing.T) {
	m := startMain(t, hookPolicy)
	ctx := context.Background()
	s := sessionEvents{t, "cx-1"}
	const run = "codex-cx-1"
	hook := func(ev string) map[string]any { t.Helper(); return hookJSON(t, cli(ctx, m, ev, "hook", "codex")) }
	hitlCLI := func(args ...string) cliResult { t.Helper(); return cli(ctx, m, "", args...) }

	assert.Nil(t, hook(s.event("codex_sessionstart.json")))
	assert.Nil(t, hook(s.event("codex_userpromptsubmit.json")))
	r := awaitRun(t, m, run, func(r *hitl.Run) bool { return r.Control.Session != nil && r.Control.Session.Title != "" })
	assert.Equal(t, "Codex", r.Control.Session.Agent)
	assert.Equal(t, "Make the release script idempotent", r.Control.Session.Title)
	t.Run("PreToolUse decides by policy in every mode: an ask is asked in hitl, a person's denial denies", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, s.event("codex_pretooluse_bash.json"), "codex")
		q := awaitPending(t, m, run, 1)[0]
		require.Equal(t, 0, hitlCLI("answer", q.ID, "deny", "--text", "not now").code)
		d := decoded(t, result(t, ch))
		assert.Equal(t, "deny", d.PermissionDecision)
		assert.Contains(t, d.PermissionDecisionReason, "not now")
	})

	t.Run("a request to leave the sandbox is shown as such, with its justification", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, s.event("codex_permissionrequest_escalated.json"), "codex")
		q := awaitPending(t, m, run, 1)[0]
		assert.Contains(t, q.Operation.Description, "Asks to leave the sandbox")
		assert.Contains(t, q.Operation.Description, "Do you want to install the project's dependencies from the network?")
		assert.Contains(t, q.Operation.Context, "outside its sandbox")
		pending := hitlCLI("pending")
		assert.Contains(t, pending.stdout, "Asks to leave the sandbox")
		require.Equal(t, 0, hitlCLI("answer", q.ID, "approve").code)
		d := decoded(t, result(t, ch))
		assert.Equal(t, "allow", d.Decision.Behavior)
	})
	t.Run("paused: the hold runs out and the tool is denied", func(t *testing.T) {
		pausedFor(ctx, t, m, run)
		sp := specific(t, heldOut(ctx, t, m, run, steer.HookPreToolUse, s.event("codex_pretooluse_bash.json"), "codex", "--wait", "1m"))
		assert.Equal(t, "deny", sp["permissionDecision"])
		assert.Contains(t, sp["permissionDecisionReason"], "paused by local")
	})
	t.Run("redirect: as context after the next tool call, or by blocking Stop", func(t *testing.T) {
		require.Equal(t, 0, hitlCLI("redirect", run, "tag only on main").code)
		sp := specific(t, hook(s.event("codex_posttooluse_bash.json")))
		assert.Equal(t, "PostToolUse", sp["hookEventName"])
		assert.Contains(t, sp["additionalContext"], "tag only on main")
		require.Equal(t, 0, hitlCLI("redirect", run, "and write a test").code)
		out := hook(s.event("codex_stop.json"))
		assert.Equal(t, "block", out["decision"])
		assert.Contains(t, out["reason"], "and write a test")
	})
	t.Run("cancel: continue false, and a permission request is denied", func(t *testing.T) {
		require.Equal(t, 0, hitlCLI("cancel", run).code)
		out := hookJSON(t, cli(ctx, m, s.event("codex_permissionrequest_bash.json"), "hook", "codex"))
		assert.Equal(t, false, out["continue"])
		assert.Equal(t, "cancelled by local in hitl", out["stopReason"])
		d := specific(t, out)["decision"].(map[string]any)
		assert.Equal(t, "deny", d["behavior"])
	})
}

// TestHookSessionFallsSilent: the sweep shows a silent session idle after
// sessions.idle_after and ends it after sessions.end_after (on the
// service's clock); its next hook call brings it back.
func TestHookSessionFallsSilent(t *testing.T) {
	clock := clocktest.New(time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	m := startMain(t, hookPolicy, withClock(clock), func(c *config.Config, _ *Main) {
		c.Sessions = config.Sessions{IdleAfter: config.Duration(10 * time.Minute), EndAfter: config.Duration(time.Hour)}
	})
	ctx := context.Background()
	s := sessionEvents{t, "quiet"}
	const run = "codex-quiet"
	assert.Nil(t, hookJSON(t, cli(ctx, m, s.event("codex_sessionstart.json"), "hook", "codex")))

	clock.Add(10 * time.Minute)
	awaitRun(t, m, run, func(r *hitl.Run) bool { return r.Control.Session.Idle })
	assert.Contains(t, cli(ctx, m, "", "runs").stdout, "running (idle)")

	clock.Add(time.Hour)
	r := awaitRun(t, m, run, func(r *hitl.Run) bool { return r.Control.Status.Ended() })
	assert.Equal(t, steer.RunAborted, r.Control.Status)
	assert.Equal(t, steer.ReasonIdle, r.Control.Reason)

	assert.Nil(t, hookJSON(t, cli(ctx, m, s.event("codex_userpromptsubmit.json"), "hook", "codex")))
	r = awaitRun(t, m, run, func(r *hitl.Run) bool { return true })
	assert.Equal(t, steer.RunRunning, r.Control.Status, "back at its next hook call")
	assert.False(t, r.Control.Session.Idle)
}
