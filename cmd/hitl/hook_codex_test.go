package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHookCodex(t *testing.T) {
	m := startMain(t, hookPolicy)
	ctx := context.Background()
	event := func(session, command string) string {
		return hookEvent(t, "codex_permissionrequest_bash.json", map[string]any{"session_id": session,
			"tool_input": map[string]any{"command": command, "description": "Push the rebased branch"}})
	}

	t.Run("approved in hitl: decision allow; the session is a live run", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, event("c-approve", "git push origin main"), "codex")
		q := awaitPending(t, m, "codex-c-approve", 1)[0]
		assert.Equal(t, hitl.OpShell, q.Operation.Type)
		assert.Equal(t, "git push origin main", q.Operation.Resource)
		assert.Contains(t, q.Question, "Push the rebased branch")
		assert.Contains(t, cli(ctx, m, "", "runs").stdout, "codex-c-ap ", "hitl runs lists the session, by its handle")
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve").code)
		d := decoded(t, result(t, ch))
		assert.Equal(t, "PermissionRequest", d.HookEventName)
		require.NotNil(t, d.Decision)
		assert.Equal(t, "allow", d.Decision.Behavior)
	})
	t.Run("Codex was about to ask: an MCP tool the default would allow is asked", func(t *testing.T) {
		ev := hookEvent(t, "codex_permissionrequest_bash.json", map[string]any{"session_id": "c-mcp",
			"tool_name": "mcp__github__delete_repository", "tool_input": map[string]any{"repo": "acme/app"}})
		ch := hookRun(ctx, m, cliOpts{}, ev, "codex")
		q := awaitPending(t, m, "codex-c-mcp", 1)[0]
		assert.True(t, q.Operation.Prompted)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny", "--text", "no").code)
		d := decoded(t, result(t, ch))
		require.NotNil(t, d.Decision)
		assert.Equal(t, "deny", d.Decision.Behavior)
	})
	t.Run("approved with an edit: deny naming the command to run instead, never updatedInput", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, event("c-edit", "git push origin main"), "codex")
		q := awaitPending(t, m, "codex-c-edit", 1)[0]
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--edit", "git push origin main:staging").code)
		r := result(t, ch)
		assert.NotContains(t, r.stdout, "updatedInput", "Codex fails closed on updatedInput")
		d := decoded(t, r)
		require.NotNil(t, d.Decision)
		assert.Equal(t, "deny", d.Decision.Behavior)
		assert.Contains(t, d.Decision.Message, "Run this instead: git push origin main:staging")
	})
	t.Run("denied by a policy rule: decision deny, nobody asked", func(t *testing.T) {
		d := decoded(t, cli(ctx, m, event("c-rule", "git push --force origin main"), "hook", "codex"))
		require.NotNil(t, d.Decision)
		assert.Equal(t, "deny", d.Decision.Behavior)
		assert.Contains(t, d.Decision.Message, "never-force-push")
	})
	t.Run("denied by a person: decision deny with the reason", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, event("c-deny", "git push origin main"), "codex")
		q := awaitPending(t, m, "codex-c-deny", 1)[0]
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny", "--text", "CI is red").code)
		d := decoded(t, result(t, ch))
		assert.Equal(t, "deny", d.Decision.Behavior)
		assert.Contains(t, d.Decision.Message, "CI is red")
	})
	t.Run("nobody answers within --wait: no decision, Codex asks; the question moved to the terminal", func(t *testing.T) {
		tm := newManualTimer()
		ch := hookRun(ctx, m, cliOpts{after: tm.after}, event("c-slow", "git push origin main"), "codex", "--wait", "6m")
		assert.Equal(t, 6*time.Minute, tm.waited(t))
		q := awaitPending(t, m, "codex-c-slow", 1)[0]
		require.NotNil(t, q.TimeoutAt)
		assert.Equal(t, 6*time.Minute, q.TimeoutAt.Sub(q.CreatedAt).Round(time.Second), "the question is due when the hook stops waiting")
		tm.fire <- time.Now()
		r := result(t, ch)
		assert.Equal(t, 0, r.code)
		assert.Empty(t, r.stdout)
		got := question(t, m, q.ID)
		assert.Equal(t, hitl.StatusCancelled, got.Status)
		assert.Contains(t, got.CancelReason, "moved to the terminal")
		assert.Contains(t, got.CancelReason, "Codex")
	})
	t.Run("service unreachable: no decision, never allow", func(t *testing.T) {
		r := cliWith(t, ctx, m, cliOpts{url: "http://127.0.0.1:1", stdin: strings.NewReader(event("c-down", "ls"))}, "hook", "codex")
		assert.Equal(t, 0, r.code)
		assert.Empty(t, r.stdout)
		assert.Contains(t, r.stderr, "hitl could not decide")
	})
}
