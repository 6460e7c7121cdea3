package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookPolicy is the policy the hook tests run under: the approval protocol's default
// (shell commands and file writes ask; reads, API calls and subagents are
// allowed) and one rule that denies.
func hookPolicy(c *config.Config, _ *Main) {
	c.Policy.Rules = []config.PolicyRule{{Name: "never-force-push", OpType: "shell", Resource: "git push --force", Effect: "deny"}}
}

func TestHookClaudePreToolUse(t *testing.T) {
	m := startMain(t, hookPolicy)
	ctx := context.Background()
	session := func(id string) map[string]any { return map[string]any{"session_id": id} }

	t.Run("allowed only by the default policy: Read, Glob, WebFetch, Task and MCP tools get no decision (Claude Code's own permissions apply)", func(t *testing.T) {
		for tool, input := range map[string]map[string]any{
			"Read":                      {"file_path": "/etc/hosts"},
			"Glob":                      {"pattern": "**/*.go"},
			"WebFetch":                  {"url": "https://example.com/docs", "prompt": "Summarize"},
			"WebSearch":                 {"query": "bbolt compaction"},
			"Task":                      {"description": "Find the flaky test", "prompt": "Look for it", "subagent_type": "general-purpose"},
			"mcp__github__search_issue": {"query": "flaky"},
		} {
			ev := hookEvent(t, "claude_pretooluse_read.json", map[string]any{"tool_name": tool, "tool_input": input})
			r := cli(ctx, m, ev, "hook", "claude")
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Empty(t, r.stdout, "%s: the default policy never allows at PreToolUse", tool)
		}
	})
	t.Run("denied by a policy rule: deny with the rule, nobody asked", func(t *testing.T) {
		ev := hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"tool_input": map[string]any{"command": "git push --force origin main"}})
		d := decoded(t, cli(ctx, m, ev, "hook", "claude"))
		assert.Equal(t, "deny", d.PermissionDecision)
		assert.Contains(t, d.PermissionDecisionReason, "never-force-push")
	})
	t.Run("Bash asked: approved in hitl, allowed; the session is a live run", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, hookEvent(t, "claude_pretooluse_bash.json", session("s-approve")), "claude")
		q := awaitPending(t, m, "claude-s-approve", 1)[0]
		require.NotNil(t, q.Operation)
		assert.Equal(t, hitl.OpShell, q.Operation.Type)
		assert.Equal(t, "npm run migrate -- --env staging", q.Operation.Resource)
		assert.Contains(t, q.Question, "Run the database migrations on staging")
		runs := cli(ctx, m, "", "runs")
		assert.Contains(t, runs.stdout, "claude-s-ap ", "hitl runs lists the session, by its handle")
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--text", "go ahead").code)
		d := decoded(t, result(t, ch))
		assert.Equal(t, "allow", d.PermissionDecision)
		assert.Contains(t, d.PermissionDecisionReason, "go ahead")
		assert.Nil(t, d.UpdatedInput)
	})
	t.Run("Bash approved with an edit: allow with the command replaced in updatedInput", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, hookEvent(t, "claude_pretooluse_bash.json", session("s-edit")), "claude")
		q := awaitPending(t, m, "claude-s-edit", 1)[0]
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--edit", "npm run migrate -- --env staging --dry-run").code)
		d := decoded(t, result(t, ch))
		assert.Equal(t, "allow", d.PermissionDecision)
		assert.Equal(t, map[string]any{"command": "npm run migrate -- --env staging --dry-run",
			"description": "Run the database migrations on staging", "timeout": float64(120000)}, d.UpdatedInput)
	})
	t.Run("Write denied by a person: deny with their reason", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, hookEvent(t, "claude_pretooluse_write.json", session("s-deny")), "claude")
		q := awaitPending(t, m, "claude-s-deny", 1)[0]
		assert.Equal(t, hitl.OpFileWrite, q.Operation.Type)
		assert.Equal(t, "/home/dev/app/config/production.yaml", q.Operation.Resource)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny", "--text", "not in production").code)
		d := decoded(t, result(t, ch))
		assert.Equal(t, "deny", d.PermissionDecision)
		assert.Contains(t, d.PermissionDecisionReason, "not in production")
	})
	t.Run("nobody answers within --wait: ask, and the question says it moved to the terminal", func(t *testing.T) {
		tm := newManualTimer()
		ch := hookRun(ctx, m, cliOpts{after: tm.after}, hookEvent(t, "claude_pretooluse_bash.json", session("s-slow")), "claude", "--wait", "7m")
		assert.Equal(t, 7*time.Minute, tm.waited(t))
		q := awaitPending(t, m, "claude-s-slow", 1)[0]
		require.NotNil(t, q.TimeoutAt)
		assert.Equal(t, 7*time.Minute, q.TimeoutAt.Sub(q.CreatedAt).Round(time.Second), "the question is due when the hook stops waiting")
		tm.fire <- time.Now()
		d := decoded(t, result(t, ch))
		assert.Equal(t, "ask", d.PermissionDecision)
		assert.Contains(t, d.PermissionDecisionReason, "No decision in hitl within 7m0s")
		got := question(t, m, q.ID)
		assert.Equal(t, hitl.StatusCancelled, got.Status)
		assert.Contains(t, got.CancelReason, "moved to the terminal")
	})
	t.Run("service unreachable: ask with the reason, never allow", func(t *testing.T) {
		ev := hookEvent(t, "claude_pretooluse_read.json", nil)
		d := decoded(t, cliWith(t, ctx, m, cliOpts{url: "http://127.0.0.1:1", stdin: strings.NewReader(ev)}, "hook", "claude"))
		assert.Equal(t, "ask", d.PermissionDecision)
		assert.Contains(t, d.PermissionDecisionReason, "hitl could not decide")
	})
}

func TestHookClaudeAskUserQuestion(t *testing.T) {
	m := startMain(t, hookPolicy)
	ctx := context.Background()
	ev := hookEvent(t, "claude_pretooluse_askuserquestion.json", map[string]any{"session_id": "s-questions"})

	t.Run("single and multi-select answered: allow with the questions and their answers", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, ev, "claude")
		qs := awaitPending(t, m, "claude-s-questions", 2)
		db, features := qs[0], qs[1]
		assert.Equal(t, "Which database should we use?", db.Question)
		assert.False(t, db.MultiSelect)
		assert.Equal(t, hitl.ChoiceResponse, db.ResponseType)
		assert.True(t, features.MultiSelect)
		require.Len(t, features.Options, 3)
		assert.Equal(t, "Redis-based response caching", features.Options[2].Description)
		require.Equal(t, 0, cli(ctx, m, "", "answer", features.ID, "Authentication,Caching").code)
		require.Equal(t, 0, cli(ctx, m, "", "answer", db.ID, "PostgreSQL").code)
		d := decoded(t, result(t, ch))
		assert.Equal(t, "allow", d.PermissionDecision)
		assert.Equal(t, map[string]any{
			"Which database should we use?":    "PostgreSQL",
			"Which features should we enable?": "Authentication, Caching",
		}, d.UpdatedInput["answers"])
		assert.Len(t, d.UpdatedInput["questions"], 2, "the original questions are passed back")
	})
	t.Run("nobody answers within --wait: ask, both questions cancelled", func(t *testing.T) {
		tm := newManualTimer()
		slow := hookEvent(t, "claude_pretooluse_askuserquestion.json", map[string]any{"session_id": "s-questions-slow"})
		ch := hookRun(ctx, m, cliOpts{after: tm.after}, slow, "claude")
		assert.Equal(t, defaultHookWait, tm.waited(t))
		qs := awaitPending(t, m, "claude-s-questions-slow", 2)
		tm.fire <- time.Now()
		d := decoded(t, result(t, ch))
		assert.Equal(t, "ask", d.PermissionDecision)
		for _, q := range qs {
			got := question(t, m, q.ID)
			assert.Equal(t, hitl.StatusCancelled, got.Status)
			assert.Contains(t, got.CancelReason, "moved to the terminal")
		}
	})
}

func TestHookClaudePermissionRequest(t *testing.T) {
	m := startMain(t, hookPolicy)
	ctx := context.Background()
	session := func(id string) map[string]any { return map[string]any{"session_id": id} }

	t.Run("Claude Code was about to ask: only a rule a person wrote allows, never the default", func(t *testing.T) {
		for i, tc := range []struct {
			tool  string
			input map[string]any
			res   string
		}{
			{"Read", map[string]any{"file_path": "/home/dev/.ssh/id_rsa"}, "/home/dev/.ssh/id_rsa"},
			{"WebFetch", map[string]any{"url": "https://unknown.example/x", "prompt": "read"}, "https://unknown.example/x"},
			{"mcp__github__delete_repository", map[string]any{"repo": "acme/app"}, ""},
			{"Bash", map[string]any{"command": "git status && rm -rf ~"}, "git status && rm -rf ~"},
		} {
			sid := fmt.Sprintf("p-prompted-%d", i)
			ev := hookEvent(t, "claude_permissionrequest_bash.json", map[string]any{"session_id": sid, "tool_name": tc.tool, "tool_input": tc.input})
			ch := hookRun(ctx, m, cliOpts{}, ev, "claude")
			q := awaitPending(t, m, "claude-"+sid, 1)[0]
			assert.True(t, q.Operation.Prompted, tc.tool)
			if tc.res != "" {
				assert.Equal(t, tc.res, q.Operation.Resource, tc.tool)
			}
			require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny", "--text", "not now").code)
			d := decoded(t, result(t, ch))
			require.NotNil(t, d.Decision, tc.tool)
			assert.Equal(t, "deny", d.Decision.Behavior, tc.tool)
		}
	})
	t.Run("approved in hitl: decision allow", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, hookEvent(t, "claude_permissionrequest_bash.json", session("p-approve")), "claude")
		q := awaitPending(t, m, "claude-p-approve", 1)[0]
		assert.Equal(t, "rm -rf dist", q.Operation.Resource)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve").code)
		d := decoded(t, result(t, ch))
		assert.Equal(t, "PermissionRequest", d.HookEventName)
		require.NotNil(t, d.Decision)
		assert.Equal(t, "allow", d.Decision.Behavior)
		assert.Nil(t, d.Decision.UpdatedInput)
	})
	t.Run("approved with an edit: decision allow with updatedInput", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, hookEvent(t, "claude_permissionrequest_bash.json", session("p-edit")), "claude")
		q := awaitPending(t, m, "claude-p-edit", 1)[0]
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--edit", "rm -rf dist/tmp").code)
		d := decoded(t, result(t, ch))
		require.NotNil(t, d.Decision)
		assert.Equal(t, "allow", d.Decision.Behavior)
		assert.Equal(t, "rm -rf dist/tmp", d.Decision.UpdatedInput["command"])
	})
	t.Run("denied in hitl: decision deny with the message", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, hookEvent(t, "claude_permissionrequest_bash.json", session("p-deny")), "claude")
		q := awaitPending(t, m, "claude-p-deny", 1)[0]
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny", "--text", "keep dist").code)
		d := decoded(t, result(t, ch))
		require.NotNil(t, d.Decision)
		assert.Equal(t, "deny", d.Decision.Behavior)
		assert.Contains(t, d.Decision.Message, "keep dist")
	})
	t.Run("nobody answers within --wait: no decision, Claude Code shows its prompt", func(t *testing.T) {
		tm := newManualTimer()
		ch := hookRun(ctx, m, cliOpts{after: tm.after}, hookEvent(t, "claude_permissionrequest_bash.json", session("p-slow")), "claude")
		tm.waited(t)
		q := awaitPending(t, m, "claude-p-slow", 1)[0]
		tm.fire <- time.Now()
		r := result(t, ch)
		assert.Equal(t, 0, r.code)
		assert.Empty(t, r.stdout)
		assert.Equal(t, hitl.StatusCancelled, question(t, m, q.ID).Status)
	})
	t.Run("service unreachable: no decision, never allow", func(t *testing.T) {
		r := cliWith(t, ctx, m, cliOpts{url: "http://127.0.0.1:1", stdin: strings.NewReader(hookEvent(t, "claude_permissionrequest_bash.json", nil))}, "hook", "claude")
		assert.Equal(t, 0, r.code)
		assert.Empty(t, r.stdout)
		assert.Contains(t, r.stderr, "hitl could not decide")
	})
	t.Run("not a hook event: exit 1 (not 2, which would block the tool), nothing printed", func(t *testing.T) {
		r := cli(ctx, m, "not json", "hook", "claude")
		assert.Equal(t, exitFailure, r.code)
		assert.Empty(t, r.stdout)
		r = cli(ctx, m, "{}", "hook", "claude", "--bogus")
		assert.Equal(t, exitFailure, r.code)
	})
}
