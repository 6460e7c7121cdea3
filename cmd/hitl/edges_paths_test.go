package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/mcp"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// agentBox is an agent's machine on disk: a home with a key, a project
// (the working directory) with a link to the key, HOME set to the home.
type agentBox struct {
	home, proj string
}

func newAgentBox(t *testing.T) agentBox {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	b := agentBox{home: filepath.Join(root, "home", "u")}
	b.proj = filepath.Join(b.home, "proj")
	require.NoError(t, os.MkdirAll(filepath.Join(b.home, ".ssh"), 0o700))
	require.NoError(t, os.MkdirAll(b.proj, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(b.home, ".ssh", "id_rsa"), []byte("KEY"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(b.proj, "README.md"), []byte("hi"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(b.home, ".ssh", "id_rsa"), filepath.Join(b.proj, "link-to-key")))
	t.Setenv("HOME", b.home)
	return b
}

// edgeRuns numbers the runs decideEverywhere asks in, across calls.
var edgeRuns int

// toolRow is one tool call and how every edge decides it.
type toolRow struct {
	tool   string
	input  map[string]any
	argv   []string // hitl gate's arguments for a Bash command, when it is one command
	effect string
	rule   string
}

func bashRow(line string, argv []string, effect, rule string) toolRow {
	return toolRow{tool: "Bash", input: map[string]any{"command": line}, argv: argv, effect: effect, rule: rule}
}

// decideEverywhere decides each row through every edge an agent reaches
// hitl by, in box, and checks each edge's answer.
func decideEverywhere(t *testing.T, m *Main, b agentBox, rows []toolRow) {
	t.Helper()
	ctx := context.Background()
	o := cliOpts{home: b.home}
	next := func() string { edgeRuns++; return fmt.Sprintf("p%d", edgeRuns) }
	asked := func(t *testing.T, run string) edgeOutcome {
		t.Helper()
		q := awaitPending(t, m, run, 1)[0]
		_, err := m.Service.Questions.Cancel(principaltest.As(ctx, "admin:test"), q.ID, "edge test")
		require.NoError(t, err)
		return edgeOutcome{"ask", q.Rule, 0}
	}
	operation := func(r toolRow) policy.Operation {
		return mcp.ToolCall{Tool: r.tool, Input: r.input}.Operation("")
	}
	edges := map[string]func(t *testing.T, r toolRow) (edgeOutcome, bool){
		"hitl policy check": func(t *testing.T, r toolRow) (edgeOutcome, bool) {
			op := operation(r)
			args := []string{"policy", "check", "--op-type", string(op.Type), "--resource", op.Resource, "--cwd", b.proj, "--json"}
			if op.Recursive {
				args = append(args, "--recursive")
			}
			res := cliWith(t, ctx, m, o, args...)
			require.Equal(t, 0, res.code, res.stderr)
			var d policy.Decision
			require.NoError(t, json.Unmarshal([]byte(res.stdout), &d))
			return edgeOutcome{string(d.Effect), d.Rule, 0}, true
		},
		"POST /api/approvals": func(t *testing.T, r toolRow) (edgeOutcome, bool) {
			run := next()
			// what a client on the agent's machine sends
			op := mcp.AgentSide(operation(r), b.home, b.proj)
			body, _ := json.Marshal(service.ApprovalRequest{Operation: op, RunID: run})
			resp, err := http.Post(m.URL()+"/api/approvals", "application/json", bytes.NewReader(body))
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Less(t, resp.StatusCode, 300)
			var out service.ApprovalOutcome
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
			if out.Effect == policy.EffectAsk {
				return asked(t, run), true
			}
			return edgeOutcome{string(out.Effect), out.Rule, 0}, true
		},
		"hitl gate": func(t *testing.T, r toolRow) (edgeOutcome, bool) {
			if r.argv == nil {
				return edgeOutcome{}, false
			}
			run := next()
			t.Chdir(b.proj) // hitl gate places paths where it runs
			ch := startCLIWith(ctx, m, o, append([]string{"gate", "--run", run, "--"}, r.argv...)...)
			if r.effect == "ask" {
				got := asked(t, run)
				result(t, ch)
				return got, true
			}
			res := result(t, ch)
			switch res.code {
			case exitDenied:
				return edgeOutcome{"deny", r.rule, 0}, strings.Contains(res.stderr, r.rule)
			case 0:
				return edgeOutcome{"allow", r.rule, 0}, true
			}
			t.Fatalf("hitl gate %v: exit %d: %s", r.argv, res.code, res.stderr)
			return edgeOutcome{}, false
		},
	}
	for _, hook := range []struct{ name, file, agent, prefix string }{
		{"Claude Code PreToolUse", "claude_pretooluse_bash.json", "claude", "claude-"},
		{"Claude Code PermissionRequest", "claude_permissionrequest_bash.json", "claude", "claude-"},
		{"Codex PermissionRequest", "codex_permissionrequest_bash.json", "codex", "codex-"},
	} {
		edges[hook.name] = func(t *testing.T, r toolRow) (edgeOutcome, bool) {
			sid := next()
			ev := hookEvent(t, hook.file, map[string]any{"session_id": sid, "cwd": b.proj, "tool_name": r.tool, "tool_input": r.input})
			ch := hookRun(ctx, m, o, ev, hook.agent)
			if r.effect == "ask" {
				got := asked(t, hook.prefix+sid)
				result(t, ch)
				return got, true
			}
			d := decoded(t, result(t, ch))
			effect, reason := d.PermissionDecision, d.PermissionDecisionReason
			if d.Decision != nil {
				effect, reason = d.Decision.Behavior, d.Decision.Message
			}
			if effect == "deny" {
				return edgeOutcome{"deny", r.rule, 0}, strings.Contains(reason, r.rule)
			}
			return edgeOutcome{effect, r.rule, 0}, true
		}
	}
	for name, edge := range edges {
		t.Run(name, func(t *testing.T) {
			for _, r := range rows {
				got, ok := edge(t, r)
				if !ok && r.argv == nil && name == "hitl gate" {
					continue
				}
				assert.True(t, ok, "%s: %v: the reason names rule %s", name, r.input, r.rule)
				assert.Equal(t, edgeOutcome{r.effect, r.rule, 0}, got, "%s: %v", name, r.input)
			}
		})
	}
	t.Run("MCP permission_prompt", func(t *testing.T) {
		c := nodeClient(t, m, "--run", "mcp-paths", "--progress-every", "200ms", "--dir", b.proj)
		for i, r := range rows {
			id := fmt.Sprintf("q%d", i)
			id += fmt.Sprint(edgeRuns)
			edgeRuns++
			c.call(id, "permission_prompt", map[string]any{"tool_name": r.tool, "input": r.input, "tool_use_id": "toolu_" + id})
			var got edgeOutcome
			if r.effect == "ask" {
				got = asked(t, "mcp-paths")
			}
			var d map[string]any
			res := c.result(id)
			require.NoError(t, json.Unmarshal([]byte(res.text()), &d), res.text())
			if r.effect != "ask" {
				got = edgeOutcome{fmt.Sprint(d["behavior"]), r.rule, 0}
				if d["behavior"] == "deny" {
					assert.Contains(t, d["message"], r.rule, r.input)
				}
			}
			assert.Equal(t, edgeOutcome{r.effect, r.rule, 0}, got, "%v", r.input)
		}
	})
}

// TestEveryEdgePlacesPaths: issue 31's path attacks, on real files, are
// denied or asked by every edge under a key deny, while reading the
// project stays allowed.
func TestEveryEdgePlacesPaths(t *testing.T) {
	b := newAgentBox(t)
	m := startMain(t, unlimited, func(c *config.Config, _ *Main) {
		c.Policy.Rules = []config.PolicyRule{
			{Name: "keys", OpType: "file_read", Resource: b.home + "/.ssh/*", Effect: "deny"},
			{Name: "cat", OpType: "shell", Resource: "cat", Effect: "allow"},
			{Name: "grep", OpType: "shell", Resource: "grep", Effect: "allow"},
			{Name: "project", OpType: "file_read", Resource: b.proj + "*", Effect: "allow"},
		}
	})
	key := b.home + "/.ssh/id_rsa"
	decideEverywhere(t, m, b, []toolRow{
		bashRow("cat README.md", []string{"cat", "README.md"}, "allow", "cat"),
		bashRow("cat ../.ssh/id_rsa", []string{"cat", "../.ssh/id_rsa"}, "deny", "keys"),
		bashRow("cat /proc/self/root"+key, []string{"cat", "/proc/self/root" + key}, "ask", "default"),
		bashRow("cat /proc/self/cwd/../.ssh/id_rsa", []string{"cat", "/proc/self/cwd/../.ssh/id_rsa"}, "ask", "default"),
		bashRow("grep -r '' ~/.ssh", []string{"grep", "-r", "", b.home + "/.ssh"}, "deny", "keys"),
		bashRow("grep -rn KEY ..", []string{"grep", "-rn", "KEY", ".."}, "deny", "keys"),
		bashRow("cat link-to-key", []string{"cat", "link-to-key"}, "deny", "keys"),
		bashRow("cd ~/.ssh && cat id_rsa", nil, "deny", "keys"),
		bashRow("cat ~0/../.ssh/id_rsa", nil, "ask", "default"), // ~0 is the directory stack: computed, never allowed
		{tool: "Grep", input: map[string]any{"pattern": "KEY", "path": b.home + "/.ssh"}, effect: "deny", rule: "keys"},
		{tool: "Grep", input: map[string]any{"pattern": "KEY", "path": b.home}, effect: "deny", rule: "keys"},
		{tool: "Glob", input: map[string]any{"pattern": "**/*", "path": b.home}, effect: "deny", rule: "keys"},
		{tool: "Grep", input: map[string]any{"pattern": "TODO", "path": b.proj}, effect: "allow", rule: "project"},
		{tool: "Read", input: map[string]any{"file_path": b.proj + "/link-to-key"}, effect: "deny", rule: "keys"},
	})
}
