package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// edgeRules: what a team writes; the rows below are decided alike by
// every edge an agent reaches hitl through.
func edgeRules(c *config.Config, _ *Main) {
	c.Policy.Rules = []config.PolicyRule{
		{Name: "no-rm-rf", OpType: "shell", Resource: "rm -rf", Effect: "deny"},
		{Name: "two-person-apply", OpType: "shell", Resource: "terraform apply", Effect: "ask", Approvers: []string{"U0A", "test"}, Quorum: 2}, // test: the test cancels what it asked
		{Name: "status", OpType: "shell", Resource: "git status", Effect: "allow"},
		{Name: "make", OpType: "shell", Resource: "make", Effect: "allow"},
		{Name: "sed", OpType: "shell", Resource: "sed", Effect: "allow"},
		{Name: "ls", OpType: "shell", Resource: "ls", Effect: "allow"},
		{Name: "echo", OpType: "shell", Resource: "echo", Effect: "allow"},
		{Name: "work", OpType: "file_write", Resource: "/home/u/work/*", Effect: "allow"},
		{Name: "keys", OpType: "file_read", Resource: "/home/*/.ssh/*", Effect: "deny"},
	}
}

// edgeRow is a line and how every edge decides it (with HOME=/home/u).
type edgeRow struct {
	line   string
	argv   []string // the same line as hitl gate's arguments, when it is one command
	effect string
	rule   string
	quorum int
}

var edgeRows = []edgeRow{
	{"git status", []string{"git", "status"}, "allow", "status", 0},
	{"/bin/rm -r -f /tmp/hitl-edge-x", []string{"/bin/rm", "-r", "-f", "/tmp/hitl-edge-x"}, "deny", "no-rm-rf", 0},
	{"rm --recursive --force /tmp/hitl-edge-x", []string{"rm", "--recursive", "--force", "/tmp/hitl-edge-x"}, "deny", "no-rm-rf", 0},
	{"terraform -chdir=. apply", []string{"terraform", "-chdir=.", "apply"}, "ask", "two-person-apply", 2},
	{"make deploy-q; let 'a[$(touch P)]=1'", nil, "ask", "default", 1},
	{"sed -n '1e touch P' f", []string{"sed", "-n", "1e touch P", "f"}, "ask", "default", 1},
	{"ls < ~/.ssh/id_rsa", nil, "deny", "keys", 0},
	{"echo x > ~/work/out", nil, "allow", "echo, work", 0},
	// friction never fails open on a part the decider cannot read
	{"echo rm -rf x | sh", nil, "deny", "no-rm-rf", 0},
	{"echo terraform apply | bash", nil, "ask", "two-person-apply", 2},
	{`python3 -c "import os; os.system('terraform apply')"`, []string{"python3", "-c", "import os; os.system('terraform apply')"}, "ask", "two-person-apply", 2},
	{"git -c alias.x='!terraform apply' x", []string{"git", "-c", "alias.x=!terraform apply", "x"}, "ask", "two-person-apply", 2},
	// where bash reads the bytes differently from the parser, the line is opaque
	{"echo # \\\nrm -rf /tmp/hitl-edge-x", nil, "deny", "no-rm-rf", 0},
	{"echo \"$\\\n(terraform apply)\"", nil, "ask", "two-person-apply", 2},
	{"find . $\\\n'-exec' rm -rf /tmp/hitl-edge-x ';'", nil, "deny", "no-rm-rf", 0},
	{"echo # \\\ntouch /tmp/hitl-edge-p", nil, "ask", "default", 1},
}

// edgeOutcome is what an edge answered: the effect, and for an ask the
// question's rule and quorum.
type edgeOutcome struct {
	effect, rule string
	quorum       int
}

func TestEveryEdgeDecidesAlike(t *testing.T) {
	t.Setenv("HOME", "/home/u") // the MCP server runs beside the agent and reads it
	m := startMain(t, edgeRules)
	ctx := context.Background()
	o := cliOpts{home: "/home/u"}
	n := 0
	next := func() string { n++; return fmt.Sprintf("e%d", n) }

	// asked settles an ask: the question's rule and quorum, then a deny so
	// the edge returns.
	asked := func(t *testing.T, run string) edgeOutcome {
		t.Helper()
		q := awaitPending(t, m, run, 1)[0]
		_, err := m.Service.Questions.Cancel(principaltest.As(ctx, "admin:test"), q.ID, "edge test")
		require.NoError(t, err)
		quorum := q.Quorum
		if quorum == 0 {
			quorum = 1
		}
		return edgeOutcome{"ask", q.Rule, quorum}
	}
	edges := map[string]func(t *testing.T, r edgeRow) (edgeOutcome, bool){
		"hitl policy check": func(t *testing.T, r edgeRow) (edgeOutcome, bool) {
			res := cliWith(t, ctx, m, o, "policy", "check", "--op-type", "shell", "--resource", r.line, "--json")
			require.Equal(t, 0, res.code, res.stderr)
			var d policy.Decision
			require.NoError(t, json.Unmarshal([]byte(res.stdout), &d))
			return edgeOutcome{string(d.Effect), d.Rule, d.Quorum}, true
		},
		"POST /api/approvals": func(t *testing.T, r edgeRow) (edgeOutcome, bool) {
			run := next()
			body, _ := json.Marshal(map[string]any{"opType": "shell", "operation": "run", "resource": r.line, "home": "/home/u", "runId": run})
			resp, err := http.Post(m.URL()+"/api/approvals", "application/json", bytes.NewReader(body))
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Less(t, resp.StatusCode, 300)
			var out service.ApprovalOutcome
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
			if out.Effect == policy.EffectAsk {
				return asked(t, run), true
			}
			return edgeOutcome{string(out.Effect), out.Rule, out.Quorum}, true
		},
		"hitl gate": func(t *testing.T, r edgeRow) (edgeOutcome, bool) {
			if r.argv == nil {
				return edgeOutcome{}, false
			}
			run := next()
			ch := startCLIWith(ctx, m, o, append([]string{"gate", "--run", run, "--"}, r.argv...)...)
			if r.effect == "ask" {
				got := asked(t, run)
				assert.NotEqual(t, 0, result(t, ch).code, "a cancelled approval never runs the command")
				return got, true
			}
			res := result(t, ch)
			switch {
			case res.code == exitDenied:
				return edgeOutcome{"deny", r.rule, 0}, strings.Contains(res.stderr, r.rule)
			case res.code == 0:
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
		edges[hook.name] = func(t *testing.T, r edgeRow) (edgeOutcome, bool) {
			sid := next()
			ev := hookEvent(t, hook.file, map[string]any{"session_id": sid, "tool_name": "Bash", "tool_input": map[string]any{"command": r.line}})
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
			for _, r := range edgeRows {
				got, ok := edge(t, r)
				if !ok && r.argv == nil && name == "hitl gate" {
					continue
				}
				assert.True(t, ok, "%s: %q: the reason names rule %s", name, r.line, r.rule)
				assert.Equal(t, edgeOutcome{r.effect, r.rule, r.quorum}, got, "%s: %q", name, r.line)
			}
		})
	}
	t.Run("MCP permission_prompt", func(t *testing.T) {
		c := nodeClient(t, m, "--run", "mcp-edges", "--progress-every", "200ms")
		for i, r := range edgeRows {
			id := fmt.Sprintf("p%d", i)
			c.call(id, "permission_prompt", map[string]any{"tool_name": "Bash", "input": map[string]any{"command": r.line}, "tool_use_id": "toolu_" + id})
			var got edgeOutcome
			if r.effect == "ask" {
				got = asked(t, "mcp-edges")
			}
			var d map[string]any
			res := c.result(id)
			require.NoError(t, json.Unmarshal([]byte(res.text()), &d), res.text())
			if r.effect != "ask" {
				got = edgeOutcome{fmt.Sprint(d["behavior"]), r.rule, 0}
				if d["behavior"] == "deny" {
					assert.Contains(t, d["message"], r.rule, r.line)
				}
			}
			assert.Equal(t, edgeOutcome{r.effect, r.rule, r.quorum}, got, "%q", r.line)
		}
	})
	t.Run("the learned-rule path: always is refused for what is not fully understood", func(t *testing.T) {
		for _, line := range []string{"make deploy-q; let 'a[$(touch P)]=1'", "terraform -chdir=. apply", "sed -n '1e touch P' f",
			"echo ls | sh", "echo # \\\ntouch /tmp/hitl-edge-p", "git -c alias.x='!terraform apply' x"} {
			run := next()
			body, _ := json.Marshal(map[string]any{"opType": "shell", "operation": "run", "resource": line, "home": "/home/u", "runId": run})
			resp, err := http.Post(m.URL()+"/api/approvals", "application/json", bytes.NewReader(body))
			require.NoError(t, err)
			resp.Body.Close()
			q := awaitPending(t, m, run, 1)[0]
			assert.False(t, q.Learnable, line)
			if len(q.Approvers) == 0 {
				res := cli(ctx, m, "", "answer", q.ID, "approve", "--always")
				assert.NotEqual(t, 0, res.code, "%s: always is refused", line)
				assert.Contains(t, res.stderr, "always allow", line)
			}
			_, err = m.Service.Questions.Cancel(principaltest.As(ctx, "admin:test"), q.ID, "edge test")
			require.NoError(t, err)
		}
		assert.Contains(t, cli(ctx, m, "", "policy", "rules").stdout, "No learned rules")
		// a fully understood command is learned exactly, and every edge
		// then allows it
		run := next()
		body, _ := json.Marshal(map[string]any{"opType": "shell", "operation": "run", "resource": "terraform plan", "runId": run})
		resp, err := http.Post(m.URL()+"/api/approvals", "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
		q := awaitPending(t, m, run, 1)[0]
		assert.True(t, q.Learnable)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--always").code)
		got, _ := edges["hitl policy check"](t, edgeRow{line: "terraform plan"})
		assert.Equal(t, "allow", got.effect)
		assert.True(t, strings.HasPrefix(got.rule, "learned "), got.rule)
		got, _ = edges["hitl policy check"](t, edgeRow{line: "terraform plan; let 'a[$(touch P)]=1'"})
		assert.Equal(t, "ask", got.effect, "a learned command never allows a line with a hidden part")
	})
}
