package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const billingSource = `package billing

func Refund(o Order) error {
	if o.Paid == 0 {
		return errNothingPaid
	}
	if !o.RefundAllowed() {
		return errNoRefund
	}
	return pay(-o.Paid)
}
`

const salesNotebook = `{"cells": [
 {"id": "load", "cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
  "source": ["import pandas as pd\n", "df = pd.read_csv(\"sales.csv\")\n", "df.head()"]}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`

// TestHookDiffsEndToEnd: Claude Code's and Codex's documented hook
// payloads for every file-changing tool, against files on disk, through
// the real service: the question carries the diff computed beside the
// file (golden, as `hitl show` prints it), `hitl pending` counts its
// lines, the Slack message (a fake Slack that enforces Block Kit's limits)
// shows it, and an approval lets the tool run.
func TestHookDiffsEndToEnd(t *testing.T) {
	srv := slackfake.New(t, slackfake.FailOnReject())
	e := slackEnvOn(t, srv, 60*time.Second, func(c *config.Config, _ *Main) { c.Web.URL = "https://hitl.example.com" })
	ctx := context.Background()
	dir := t.TempDir()
	var big strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&big, "row %d of a generated fixture file\n", i)
	}
	files := map[string]string{"src/billing.go": billingSource, "README.md": "# app\n\nBilling.\n", "sales.ipynb": salesNotebook,
		"fixtures.txt": strings.ReplaceAll(big.String(), "fixture", "old fixture")}
	for name, content := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name, file, agent, tool string
		input                   map[string]any
		pending                 string // the operation as hitl pending shows it
		slack                   []string
	}{
		{"claude_edit", "claude_pretooluse_write.json", "claude", "Edit",
			map[string]any{"file_path": p("src/billing.go"), "old_string": "\tif !o.RefundAllowed() {\n\t\treturn errNoRefund\n\t}\n", "new_string": "", "replace_all": false},
			"file_write: /home/dev/app/src/billing.go (+0 −3)", []string{"📄 */home/dev/app/src/billing.go* · `+0 −3`", "-\\tif !o.RefundAllowed() {"}},
		{"claude_edit_not_in_file", "claude_pretooluse_write.json", "claude", "Edit",
			map[string]any{"file_path": p("src/billing.go"), "old_string": "return refund(o)", "new_string": "return nil"},
			"file_write: /home/dev/app/src/billing.go\n", []string{"⚠️ old_string is not in the file"}},
		{"claude_multiedit", "claude_pretooluse_write.json", "claude", "MultiEdit",
			map[string]any{"file_path": p("src/billing.go"), "edits": []any{
				map[string]any{"old_string": "errNoRefund", "new_string": "ErrNoRefund"},
				map[string]any{"old_string": "return pay(-o.Paid)", "new_string": "return pay(-o.Paid, o.Currency)"}}},
			"file_write: /home/dev/app/src/billing.go (+2 −2)", []string{"`+2 −2`", "+\\t\\treturn ErrNoRefund"}},
		{"claude_write_new", "claude_pretooluse_write.json", "claude", "Write",
			map[string]any{"file_path": p("src/tax.go"), "content": "package billing\n\nconst VAT = 0.2\n"},
			"file_write: /home/dev/app/src/tax.go (+3 −0)", []string{"📄 */home/dev/app/src/tax.go* · new file · `+3 −0`"}},
		{"claude_write_existing", "claude_pretooluse_write.json", "claude", "Write",
			map[string]any{"file_path": p("README.md"), "content": "# app\n\nBilling and refunds.\n"},
			"file_write: /home/dev/app/README.md (+1 −1)", []string{"-Billing.", "+Billing and refunds."}},
		{"claude_notebookedit", "claude_pretooluse_write.json", "claude", "NotebookEdit",
			map[string]any{"notebook_path": p("sales.ipynb"), "cell_id": "load", "new_source": "import pandas as pd\ndf = pd.read_csv(\"sales-2026.csv\")\ndf.head()", "cell_type": "code", "edit_mode": "replace"},
			"file_write: /home/dev/app/sales.ipynb (+1 −1)", []string{"+df = pd.read_csv(\\\"sales-2026.csv\\\")"}},
		{"codex_apply_patch", "codex_permissionrequest_apply_patch.json", "codex", "", nil,
			"file_write (+4 −1)", []string{"📄 */home/dev/app/src/billing.go* · `+1 −1`", "📄 */home/dev/app/src/tax.go* · new file · `+3 −0`"}},
		{"claude_write_20000_lines", "claude_pretooluse_write.json", "claude", "Write",
			map[string]any{"file_path": p("fixtures.txt"), "content": big.String()},
			"file_write: /home/dev/app/fixtures.txt (+20000 −20000)", []string{"more lines (and more cut at 256 KiB)", "the whole diff in the web inbox"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := map[string]any{"session_id": "diff-" + tt.name, "cwd": dir}
			if tt.tool != "" {
				set["tool_name"], set["tool_input"] = tt.tool, tt.input
			}
			ch := hookRun(ctx, e.m, cliOpts{}, hookEvent(t, tt.file, set), tt.agent)
			q := awaitPending(t, e.m, tt.agent+"-diff-"+tt.name, 1)[0]
			require.NotNil(t, q.Operation)
			require.NotEmpty(t, q.Operation.Diffs, "the question carries the diff")

			show := cli(ctx, e.m, "", "show", q.ID)
			require.Equal(t, 0, show.code, show.stderr)
			assert.NotContains(t, show.stdout, "\x1b[", "plain in a pipe")
			_, body, _ := strings.Cut(show.stdout, "\n\n") // after the id, state, run and time
			diffGolden(t, tt.name, strings.NewReplacer(dir, "/home/dev/app", q.ID, "q_ID").Replace(shortened(body, 40)))

			pending := cli(ctx, e.m, "", "pending", "--run", q.RunID)
			assert.Contains(t, strings.ReplaceAll(pending.stdout, dir, "/home/dev/app"), tt.pending)

			msg := e.posted(t, testChannel, q)
			blocks := strings.ReplaceAll(string(msg.Blocks), strings.ReplaceAll(dir, "/", "\\/"), "/home/dev/app")
			blocks = strings.ReplaceAll(blocks, dir, "/home/dev/app")
			for _, want := range tt.slack {
				assert.Contains(t, blocks, want, "the Slack message")
			}

			require.Equal(t, 0, cli(ctx, e.m, "", "answer", q.ID, "approve").code)
			out := result(t, ch)
			require.Equal(t, 0, out.code, out.stderr)
			var v map[string]map[string]any
			require.NoError(t, json.Unmarshal([]byte(out.stdout), &v), out.stdout)
			if tt.agent == "codex" {
				assert.Equal(t, "allow", v["hookSpecificOutput"]["decision"].(map[string]any)["behavior"])
			} else {
				assert.Equal(t, "allow", v["hookSpecificOutput"]["permissionDecision"])
			}
		})
	}
	t.Run("a 20,000-line diff is capped and says so", func(t *testing.T) {
		qs := awaitAll(t, e.m, "claude-diff-claude_write_20000_lines")
		require.Len(t, qs, 1)
		d := qs[0].Operation.Diffs[0]
		assert.True(t, d.Truncated)
		assert.LessOrEqual(t, len(d.Unified), hitl.MaxDiffBytes)
		assert.Equal(t, 20000, d.Added)
		show := cli(ctx, e.m, "", "show", qs[0].ID, "--color", "always")
		assert.Contains(t, show.stdout, "\x1b[31m… truncated: the diff was cut at 256 KiB on the agent's machine\x1b[0m")
		assert.Contains(t, show.stdout, "\x1b[31m-row 0 of a generated old fixture file\x1b[0m", "coloured when asked")
	})
}

// diffGolden compares got with testdata/diffs/NAME.golden (-update
// rewrites it).
func diffGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "diffs", name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test ./cmd/hitl -run TestHookDiffsEndToEnd -update writes it")
	assert.Equal(t, string(want), got)
}

// shortened keeps a long output's first lines and its last ones, saying
// how many it left out, so a golden file stays readable.
func shortened(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	out := append(lines[:n-6:n-6], fmt.Sprintf("[… %d lines left out of this golden file …]", len(lines)-n))
	return strings.Join(append(out, lines[len(lines)-6:]...), "\n")
}

func TestShowErrors(t *testing.T) {
	m := startMain(t)
	ctx := context.Background()
	for name, tc := range map[string]struct {
		args []string
		code int
		msg  string
	}{
		"no id":         {[]string{"show"}, exitUsage, "hitl show needs one question id"},
		"an unknown id": {[]string{"show", "q_0000000000000000"}, exitNotFound, "not found"},
		"a bad --color": {[]string{"show", "q_1", "--color", "pink"}, exitUsage, `--color is auto, always or never, not "pink"`},
		"two ids":       {[]string{"show", "q_1", "q_2"}, exitUsage, "hitl show needs one question id"},
	} {
		t.Run(name, func(t *testing.T) {
			r := cli(ctx, m, "", tc.args...)
			assert.Equal(t, tc.code, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.msg)
			assert.Empty(t, r.stdout)
		})
	}
}

// TestHookApprovalBoundToContent: an approval is of the diff a person saw.
// When the file changes on disk before the answer, the hook does not allow
// the edit: it asks again, with the diff against what the file holds now,
// and says why; a file that did not change is allowed at once.
func TestHookApprovalBoundToContent(t *testing.T) {
	m := startMain(t, hookPolicy)
	ctx := context.Background()
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	require.NoError(t, os.WriteFile(readme, []byte("# app\n\nBilling.\n"), 0o644))
	write := map[string]any{"file_path": readme, "content": "# app\n\nBilling and refunds.\n"}
	event := func(session string) string {
		return hookEvent(t, "claude_pretooluse_write.json", map[string]any{"session_id": session, "cwd": dir, "tool_name": "Write", "tool_input": write})
	}

	t.Run("unchanged: the approval allows", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, event("bound-same"), "claude")
		q := awaitPending(t, m, "claude-bound-same", 1)[0]
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve").code)
		assert.Equal(t, "allow", decoded(t, result(t, ch)).PermissionDecision)
	})
	t.Run("changed between the diff and the answer: asked again with the new diff", func(t *testing.T) {
		ch := hookRun(ctx, m, cliOpts{}, event("bound-changed"), "claude")
		first := awaitPending(t, m, "claude-bound-changed", 1)[0]
		require.Contains(t, first.Operation.Diffs[0].Unified, "-Billing.")
		require.NoError(t, os.WriteFile(readme, []byte("# app\n\nBilling, refunds and taxes.\n"), 0o644))
		require.Equal(t, 0, cli(ctx, m, "", "answer", first.ID, "approve").code)

		again := awaitPending(t, m, "claude-bound-changed", 1)[0]
		assert.NotEqual(t, first.ID, again.ID, "a new question")
		assert.Contains(t, again.Operation.Diffs[0].Unified, "-Billing, refunds and taxes.", "the diff against what the file holds now")
		assert.Contains(t, again.Operation.Context, "Asked again: "+readme+" changed on disk after")
		select {
		case r := <-ch:
			t.Fatalf("the hook decided on the old diff: %s", r.stdout)
		default:
		}
		require.Equal(t, 0, cli(ctx, m, "", "answer", again.ID, "approve").code)
		assert.Equal(t, "allow", decoded(t, result(t, ch)).PermissionDecision)
	})
	t.Run("a denial needs no second look", func(t *testing.T) {
		require.NoError(t, os.WriteFile(readme, []byte("# app\n\nBilling.\n"), 0o644))
		ch := hookRun(ctx, m, cliOpts{}, event("bound-denied"), "claude")
		q := awaitPending(t, m, "claude-bound-denied", 1)[0]
		require.NoError(t, os.WriteFile(readme, []byte("# changed\n"), 0o644))
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny", "--text", "no").code)
		assert.Equal(t, "deny", decoded(t, result(t, ch)).PermissionDecision)
	})
}
