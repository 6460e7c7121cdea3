package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHookClaudeSessionFromSlack drives a whole Claude Code session through
// `hitl hook claude` while a person steers it from Slack, with slash
// commands and the live run message's buttons, under slack.controllers.
func TestHookClaudeSessionFromSlack(t *testing.T) {
	e := startSteering(t, time.Millisecond, nil)
	ctx := context.Background()
	s := sessionEvents{t, "sl-1"}
	const run = "claude-sl-1"
	hook := func(t *testing.T, ev string) map[string]any {
		t.Helper()
		return hookJSON(t, cli(ctx, e.m, ev, "hook", "claude"))
	}
	held := func(t *testing.T, file string) (<-chan cliResult, *manualTimer) {
		t.Helper()
		tm := newManualTimer()
		ch := hookRun(ctx, e.m, cliOpts{after: tm.after}, s.event(file), "claude", "--wait", "5m")
		assert.Equal(t, 5*time.Minute, tm.waited(t))
		awaitRun(t, e.m, run, func(r *hitl.Run) bool { return r.Control.Session != nil && r.Control.Session.Held != "" })
		return ch, tm
	}

	assert.Nil(t, hook(t, s.event("claude_sessionstart.json")))
	assert.Nil(t, hook(t, s.event("claude_userpromptsubmit.json")))
	live := e.liveMessage(t, run, has("Fix the failing test in pkg/billing"))
	assert.Contains(t, string(live.Blocks), "/home/dev/app")
	assert.Contains(t, string(live.Blocks), "Claude Code")
	assert.Contains(t, e.slash(t, controller, "status "+run), "Fix the failing test in pkg/billing")

	t.Run("a pause from a slash command is queued until the next hook call, which holds; Resume lets it go", func(t *testing.T) {
		_, res := e.steerSlash(t, controller, "pause "+run)
		assert.Contains(t, res, "Session paused: queued, Claude Code holds at its next hook call")
		e.liveMessage(t, run, has("queued: Claude Code holds at its next hook call"))
		ch, _ := held(t, "claude_pretooluse_read.json")
		m := e.liveMessage(t, run, has("Claude Code is held at PreToolUse"))
		assert.Contains(t, string(m.Blocks), "Paused by slack:U0CTRL")
		e.click(t, controller, m, blocks.ActionRunResume)
		out := hookJSON(t, result(t, ch))
		assert.Nil(t, out, "resumed: a read only the default policy allows gets no decision (Claude Code's own permissions)")
		e.liveMessage(t, run, has(blocks.ActionRunPause))
	})
	t.Run("a non-controller's Pause is refused; the session goes on", func(t *testing.T) {
		e.click(t, "U0ANSWER", e.liveMessage(t, run, has(blocks.ActionRunPause)), blocks.ActionRunPause)
		e.ephemeralFor(t, "U0ANSWER", "not allowed to steer")
		assert.Nil(t, hook(t, s.event("claude_pretooluse_read.json")), "not held: the default policy's read goes on to Claude Code")
	})
	t.Run("the Pause button holds the next call; when --wait runs out the tool is denied", func(t *testing.T) {
		e.click(t, controller, e.liveMessage(t, run, has(blocks.ActionRunPause)), blocks.ActionRunPause)
		e.liveMessage(t, run, has("⏸ Paused"))
		ch, tm := held(t, "claude_pretooluse_bash.json")
		tm.fire <- time.Now()
		sp := specific(t, hookJSON(t, result(t, ch)))
		assert.Equal(t, "deny", sp["permissionDecision"])
		assert.Contains(t, sp["permissionDecisionReason"], "paused by slack:U0CTRL in hitl — waiting")
		_, res := e.steerSlash(t, controller, "resume "+run)
		assert.Contains(t, res, "Session resumed")
	})
	t.Run("a slash redirect is shown queued, then reaches the model once after the next tool call", func(t *testing.T) {
		_, res := e.steerSlash(t, controller, "redirect "+run+" stop refactoring, just fix the failing test")
		assert.Contains(t, res, "Instruction queued: Claude Code gets it at its next step")
		e.liveMessage(t, run, has("Instruction queued for Claude Code"))
		sp := specific(t, hook(t, s.event("claude_posttooluse_bash.json")))
		assert.Contains(t, sp["additionalContext"], "stop refactoring, just fix the failing test")
		e.liveMessage(t, run, func(m slackfake.Message) bool { return !strings.Contains(string(m.Blocks), "Instruction queued") })
		assert.Nil(t, hook(t, s.event("claude_posttooluse_bash.json")))
	})
	t.Run("the Redirect modal's instruction blocks the agent's Stop so it keeps working", func(t *testing.T) {
		e.click(t, controller, e.liveMessage(t, run, has(blocks.ActionRunRedirect)), blocks.ActionRunRedirect)
		view := lastModal(t, e, blocks.CallbackRedirect)
		_, err := e.srv.SendInteractive(e.ctx, e.srv.ViewSubmission(controller, view, map[string]map[string]string{
			blocks.BlockInstruction: {blocks.InputActionID: "now update the changelog"}}))
		require.NoError(t, err)
		e.liveMessage(t, run, has("now update the changelog"))
		out := hook(t, s.event("claude_stop.json"))
		assert.Equal(t, "block", out["decision"])
		assert.Contains(t, out["reason"], "now update the changelog")
	})
	t.Run("escalate fails in plain words: a hook cannot switch the model", func(t *testing.T) {
		_, res := e.steerSlash(t, controller, "escalate "+run+" opus")
		assert.Contains(t, res, "cannot switch models from a hook")
		assert.NotContains(t, res, "Escalated")
	})
	t.Run("the Cancel button ends the run; the next hook call stops Claude Code naming who", func(t *testing.T) {
		e.click(t, controller, e.liveMessage(t, run, has(blocks.ActionRunCancel)), blocks.ActionRunCancel)
		e.liveMessage(t, run, has("Aborted: USER_CANCELLED"))
		out := hook(t, s.event("claude_pretooluse_read.json"))
		assert.Equal(t, false, out["continue"])
		assert.Equal(t, "cancelled by slack:U0CTRL in hitl", out["stopReason"])
		assert.Equal(t, "deny", specific(t, out)["permissionDecision"])
		assert.Nil(t, hook(t, s.event("claude_sessionend.json")))
	})
}
