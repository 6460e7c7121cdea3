package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHookEditedFileChange: a person's edit of a file change (its new
// text, its path) is not run on the diff they saw. The hook asks again,
// as a new question naming the first, with the edited change's diff
// against the file at the (edited) path as it is now; the edited call
// runs only once that is approved, and Claude is told what ran.
func TestHookEditedFileChange(t *testing.T) {
	m := startMain(t, hookPolicy)
	ctx := context.Background()
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.md")
	readme := filepath.Join(dir, "README.md")
	require.NoError(t, os.WriteFile(readme, []byte("# app\n\nBilling.\nRefunds.\n"), 0o644))
	write := func(session string) string {
		return hookEvent(t, "claude_pretooluse_write.json", map[string]any{"session_id": session, "cwd": dir, "tool_name": "Write",
			"tool_input": map[string]any{"file_path": notes, "content": "one\n"}})
	}

	t.Run("content edited: asked again with the edited diff, then run with the edited content", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, write("edit-content"), "claude")
		first := awaitPending(t, m, "claude-edit-content", 1)[0]
		require.Equal(t, "one\n", first.Operation.Content, "the new text a person may edit")
		require.Contains(t, first.Operation.Diffs[0].Unified, "+one")
		r := cli(ctx, m, "", "answer", first.ID, "approve", "--edit-content", "one\ntwo\nthree\n")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "the agent shows its diff against the file and asks again")

		again := awaitPending(t, m, "claude-edit-content", 1)[0]
		require.NotEqual(t, first.ID, again.ID, "a new question")
		assert.Contains(t, again.Operation.Context, "Asked again: local edited this change (question "+first.ID+")")
		d := again.Operation.Diffs[0]
		assert.Equal(t, notes, d.Path)
		assert.Equal(t, 3, d.Added, "the diff of the edited content: %s", d.Unified)
		assert.Contains(t, d.Unified, "+three")
		assertUndecided(t, ch)

		require.Equal(t, 0, cli(ctx, m, "", "answer", again.ID, "approve").code)
		out := decoded(t, result(t, ch))
		assert.Equal(t, "allow", out.PermissionDecision)
		assert.Equal(t, map[string]any{"file_path": notes, "content": "one\ntwo\nthree\n"}, out.UpdatedInput)
		assert.Contains(t, out.AdditionalContext, "A person (local) edited this Write call in hitl")
		assert.Contains(t, out.AdditionalContext, "one\ntwo\nthree", "the model reads what was written")
		assert.Contains(t, out.PermissionDecisionReason, "after local's edit (question "+first.ID+")")
	})

	t.Run("path edited onto an existing file: its overwrite diff is asked, never written unseen", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, write("edit-path"), "claude")
		first := awaitPending(t, m, "claude-edit-path", 1)[0]
		assert.Equal(t, "new", string(first.Operation.Diffs[0].Change))
		require.Equal(t, 0, cli(ctx, m, "", "answer", first.ID, "approve", "--edit", readme).code)

		again := awaitPending(t, m, "claude-edit-path", 1)[0]
		require.NotEqual(t, first.ID, again.ID)
		d := again.Operation.Diffs[0]
		assert.Equal(t, readme, d.Path, "the diff is of the file at the edited path")
		assert.Equal(t, readme, again.Operation.Resource)
		assert.NotEqual(t, "new", string(d.Change))
		assert.Contains(t, d.Unified, "-Billing.", "what the overwrite removes is shown")
		assert.Contains(t, again.Operation.Context, "against "+readme+" as it is now")
		assertUndecided(t, ch)

		require.Equal(t, 0, cli(ctx, m, "", "answer", again.ID, "approve").code)
		out := decoded(t, result(t, ch))
		assert.Equal(t, "allow", out.PermissionDecision)
		assert.Equal(t, map[string]any{"file_path": readme, "content": "one\n"}, out.UpdatedInput)
		assert.Contains(t, out.AdditionalContext, `file_path: "`+readme+`" instead of "`+notes+`"`)
	})

	t.Run("the edited change denied: nothing runs", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, write("edit-denied"), "claude")
		first := awaitPending(t, m, "claude-edit-denied", 1)[0]
		require.Equal(t, 0, cli(ctx, m, "", "answer", first.ID, "approve", "--edit", readme).code)
		again := awaitPending(t, m, "claude-edit-denied", 1)[0]
		require.NotEqual(t, first.ID, again.ID)
		require.Equal(t, 0, cli(ctx, m, "", "answer", again.ID, "deny", "--text", "not the README").code)
		out := decoded(t, result(t, ch))
		assert.Equal(t, "deny", out.PermissionDecision)
		assert.Nil(t, out.UpdatedInput)
	})

	t.Run("a command's content cannot be edited: refused, exit 2", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": "edit-bash-content", "cwd": dir}), "claude")
		q := awaitPending(t, m, "claude-edit-bash-content", 1)[0]
		r := cli(ctx, m, "", "answer", q.ID, "approve", "--edit-content", "x")
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, "no content to edit")
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny").code)
		assert.Equal(t, "deny", decoded(t, result(t, ch)).PermissionDecision)
	})
}

// TestHookToldOfEdit: when a person edits a command before approving it,
// Claude reads it in additionalContext (an allow's reason goes to the
// person only), so its history says what ran.
func TestHookToldOfEdit(t *testing.T) {
	m := startMain(t, hookPolicy)
	ctx := context.Background()
	ch := hookRun(ctx, m, cliOpts{}, hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": "told"}), "claude")
	q := awaitPending(t, m, "claude-told", 1)[0]
	require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--edit", "npm run migrate -- --env staging --dry-run", "--text", "dry run first").code)
	out := decoded(t, result(t, ch))
	assert.Equal(t, "allow", out.PermissionDecision)
	assert.Equal(t, "npm run migrate -- --env staging --dry-run", out.UpdatedInput["command"])
	assert.Contains(t, out.AdditionalContext, `A person (local) edited this Bash call in hitl before approving it, so it runs with their input, not yours.`)
	assert.Contains(t, out.AdditionalContext, `command: "npm run migrate -- --env staging --dry-run" instead of "npm run migrate -- --env staging"`)
	assert.Contains(t, out.AdditionalContext, "Their message: dry run first")

	t.Run("nobody edited: nothing is added", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": "told-plain"}), "claude")
		q := awaitPending(t, m, "claude-told-plain", 1)[0]
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve").code)
		out := decoded(t, result(t, ch))
		assert.Equal(t, "allow", out.PermissionDecision)
		assert.Empty(t, out.AdditionalContext)
	})
}

// assertUndecided fails when the hook already printed a decision.
func assertUndecided(t *testing.T, ch <-chan cliResult) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("the hook decided on the diff before the edit: %s", r.stdout)
	default:
	}
}

// TestHookWaitIsTheDeadline: a hook's question is due when the hook stops
// waiting (--wait); a --wait outside the service's timeout bounds is not
// asked with another deadline: the hook leaves the call to the agent's
// own prompt, naming the flag and the bounds.
func TestHookWaitIsTheDeadline(t *testing.T) {
	m := startMain(t, hookPolicy)
	ctx := context.Background()
	t.Run("the default wait", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": "due"}), "claude")
		q := awaitPending(t, m, "claude-due", 1)[0]
		require.NotNil(t, q.TimeoutAt)
		assert.Equal(t, defaultHookWait, q.TimeoutAt.Sub(q.CreatedAt).Round(time.Second))
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny").code)
		assert.Equal(t, "deny", decoded(t, result(t, ch)).PermissionDecision)
	})
	for _, tc := range []struct{ wait, bound string }{{"2m", "below this service's minimum of 5m"}, {"25h", "above this service's maximum of 24h"}} {
		t.Run("--wait "+tc.wait+" is refused, never asked with another deadline", func(t *testing.T) {
			d := decoded(t, result(t, hookRun(ctx, m, cliOpts{}, hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": "due-" + tc.wait}), "claude", "--wait", tc.wait)))
			assert.Equal(t, "ask", d.PermissionDecision, "the agent's own prompt decides")
			assert.Contains(t, d.PermissionDecisionReason, "hitl hook --wait "+tc.wait+": timeout "+tc.wait+" is "+tc.bound)
			assert.Contains(t, d.PermissionDecisionReason, "set --wait within those bounds")
			assert.Empty(t, awaitAll(t, m, "claude-due-"+tc.wait), "nothing was asked")
		})
	}
}

// TestHookToldOfEditAtPermissionRequest: PermissionRequest's allow has no
// field the model reads, so an edit made there reaches the model with the
// PostToolUse of the call that ran the edited input, once; another call's
// PostToolUse, and the same one again, hear nothing.
func TestHookToldOfEditAtPermissionRequest(t *testing.T) {
	m := startMain(t, hookPolicy)
	ctx := context.Background()
	o := cliOpts{home: t.TempDir()}
	ch := hookRun(ctx, m, o, hookEvent(t, "claude_permissionrequest_bash.json", map[string]any{"session_id": "told-pr"}), "claude")
	q := awaitPending(t, m, "claude-told-pr", 1)[0]
	require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--edit", "rm -rf dist/tmp", "--text", "only the scratch folder").code)
	r := result(t, ch)
	require.Equal(t, 0, r.code, r.stderr)
	var pr struct {
		HookSpecificOutput struct {
			Decision struct {
				Behavior     string         `json:"behavior"`
				UpdatedInput map[string]any `json:"updatedInput"`
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &pr), r.stdout)
	require.Equal(t, "allow", pr.HookSpecificOutput.Decision.Behavior)
	ran := pr.HookSpecificOutput.Decision.UpdatedInput
	require.Equal(t, "rm -rf dist/tmp", ran["command"])

	post := func(session string, input map[string]any) cliResult {
		t.Helper()
		return result(t, hookRun(ctx, m, o, hookEvent(t, "claude_posttooluse_bash.json", map[string]any{"session_id": session, "tool_input": input}), "claude"))
	}
	t.Run("another call's PostToolUse hears nothing", func(t *testing.T) {
		r := post("told-pr", map[string]any{"command": "ls", "description": "List"})
		require.Equal(t, 0, r.code, r.stderr)
		assert.Empty(t, strings.TrimSpace(r.stdout))
	})
	t.Run("another session's PostToolUse of the same input hears nothing", func(t *testing.T) {
		r := post("told-other", ran)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Empty(t, strings.TrimSpace(r.stdout))
	})
	r = post("told-pr", ran)
	require.Equal(t, 0, r.code, r.stderr)
	var out struct {
		HookSpecificOutput contextOutput `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
	assert.Equal(t, "PostToolUse", out.HookSpecificOutput.HookEventName)
	assert.Contains(t, out.HookSpecificOutput.AdditionalContext, `A person (local) edited this Bash call in hitl before approving it, so it runs with their input, not yours.`)
	assert.Contains(t, out.HookSpecificOutput.AdditionalContext, `command: "rm -rf dist/tmp" instead of "rm -rf dist"`)
	assert.Contains(t, out.HookSpecificOutput.AdditionalContext, "Their message: only the scratch folder")
	t.Run("told once", func(t *testing.T) {
		r := post("told-pr", ran)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Empty(t, strings.TrimSpace(r.stdout))
	})
}

// TestEditNotesSwept: a note nobody read for longer than editNoteMaxAge
// is removed when the next note is left; a fresh one stays.
func TestEditNotesSwept(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "hitl", "edit-notes")
	require.NoError(t, os.MkdirAll(notes, 0o700))
	old, fresh := filepath.Join(notes, "old"), filepath.Join(notes, "fresh")
	require.NoError(t, os.WriteFile(old, []byte("x"), 0o600))
	require.NoError(t, os.WriteFile(fresh, []byte("y"), 0o600))
	long := time.Now().Add(-editNoteMaxAge - time.Hour)
	require.NoError(t, os.Chtimes(old, long, long))
	h := &hookCall{e: &env{getenv: func(k string) string {
		if k == "XDG_CACHE_HOME" {
			return dir
		}
		return ""
	}}, agent: "Claude Code"}
	h.leaveEditNote(map[string]any{"command": "ls"}, "a note")
	assert.NoFileExists(t, old, "the old note is swept")
	assert.FileExists(t, fresh)
	assert.FileExists(t, filepath.Join(notes, h.editNoteKey(map[string]any{"command": "ls"})))
}
