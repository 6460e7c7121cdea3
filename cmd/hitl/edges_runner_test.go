package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/hook"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The edge runner decides one table of tool calls through every edge an
// agent reaches hitl by — hitl policy check, POST /api/approvals, hitl
// gate, Claude Code's PreToolUse and PermissionRequest hooks and Codex's
// (with process, each a real `hitl hook` process), MCP permission_prompt — and the
// learned-rule path, and checks that each answers as the row says.

// agentBox is an agent's machine on disk: a home with a key, a project
// (the working directory) with a link to the key, HOME set to the home.
type agentBox struct {
	home, proj string // proj "": the edges send no working directory
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

// noLimits turns the service's rate limits off: an edge table asks some
// hundreds of approvals and policy checks a minute, and a limit to wait
// out is not what it tests.
func noLimits(c *config.Config, _ *Main) {
	c.RateLimits.TokenPerMinute, c.RateLimits.RunPerMinute, c.RateLimits.PolicyPerMinute, c.RateLimits.RunsPerMinute = 0, 0, 0, 0
}

// edgeCase is one tool call and how every edge decides it.
type edgeCase struct {
	tool   string
	input  map[string]any
	argv   []string // hitl gate's arguments, when the call is a command it can run
	effect string   // allow, deny or ask
	rule   string   // the rule that decides (an ask: its question's rule)
	quorum int      // an ask's quorum (0 means 1)
	// learnable: a person may answer the ask with "always" (the line is
	// fully understood); otherwise "always" is refused.
	learnable bool
}

func bashCase(line string, argv []string, effect, rule string) edgeCase {
	return edgeCase{tool: "Bash", input: map[string]any{"command": line}, argv: argv, effect: effect, rule: rule}
}

// quorum2 is c asked of two people.
func (c edgeCase) quorum2() edgeCase { c.quorum = 2; return c }

// canLearn is c's ask answerable with "always".
func (c edgeCase) canLearn() edgeCase { c.learnable = true; return c }

// edgeOutcome is what an edge answered: the effect, and for an ask the
// question's rule and quorum.
type edgeOutcome struct {
	effect, rule string
	quorum       int
}

func (c edgeCase) want() edgeOutcome {
	if c.effect != "ask" {
		return edgeOutcome{c.effect, c.rule, 0}
	}
	return edgeOutcome{"ask", c.rule, max(c.quorum, 1)}
}

// edgeRuns numbers the runs and sessions the runner asks in, across tests.
var edgeRuns atomic.Int64

func nextEdgeRun(prefix string) string { return fmt.Sprintf("%s%d", prefix, edgeRuns.Add(1)) }

// edgeRunner decides cases through every edge against m, on b.
type edgeRunner struct {
	m *Main
	b agentBox
	// mode is the hook events' permission_mode ("": the recorded event's).
	mode string
	// hooksOnly decides through the hooks alone (what a mode changes).
	hooksOnly bool
	// process runs each hook as its own `hitl hook` process, as the agent
	// does (program, or hitlProgram); otherwise in this process.
	process bool
	program string
}

// hookProcess runs `hitl hook agent` as its own process (this test
// binary as hitl) with event on stdin, HOME the box's home, in the
// project (the test's directory when the box has none).
func (e edgeRunner) hookProcess(t *testing.T, event, agent string) <-chan cliResult {
	t.Helper()
	program := e.program
	if program == "" {
		program = hitlProgram(t)
	}
	cmd := exec.Command(program, "hook", agent)
	cmd.Dir = e.b.proj
	cmd.Env = append(os.Environ(), "HOME="+e.b.home, "HITL_URL="+e.m.URL(), "HITL_TOKEN=", "USER=tester")
	cmd.Stdin = strings.NewReader(event)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	ch := make(chan cliResult, 1)
	go func() {
		_ = cmd.Wait() // the exit code is the result's
		ch <- cliResult{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
	}()
	return ch
}

// asked settles an ask in run: its question's rule and quorum, then a
// cancel so the edge returns.
func (e edgeRunner) asked(t *testing.T, run string) edgeOutcome {
	t.Helper()
	q := awaitPending(t, e.m, run, 1)[0]
	_, err := e.m.Service.Questions.Cancel(principaltest.As(context.Background(), "admin:test"), q.ID, "edge test")
	require.NoError(t, err)
	return edgeOutcome{"ask", q.Rule, max(q.Quorum, 1)}
}

func (c edgeCase) operation() hitl.Operation {
	return hook.ToolCall{Tool: c.tool, Input: c.input}.Operation("")
}

// post sends c to POST /api/approvals as a client on the agent's machine.
func (e edgeRunner) post(t *testing.T, c edgeCase, run string) hitl.ApprovalOutcome {
	t.Helper()
	op := hook.AgentSide(c.operation(), e.b.home, e.b.proj)
	body, err := json.Marshal(hitl.ApprovalRequest{Operation: op, RunID: run})
	require.NoError(t, err)
	resp, err := http.Post(e.m.URL()+"/api/approvals", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Less(t, resp.StatusCode, 300)
	var out hitl.ApprovalOutcome
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return out
}

// check is hitl policy check's decision of c.
func (e edgeRunner) check(t *testing.T, c edgeCase) hitl.Decision {
	t.Helper()
	op := c.operation()
	args := []string{"policy", "check", "--op-type", string(op.Type), "--resource", op.Resource, "--json"}
	if e.b.proj != "" {
		args = append(args, "--cwd", e.b.proj)
	}
	if op.Recursive {
		args = append(args, "--recursive")
	}
	res := cliWith(t, context.Background(), e.m, cliOpts{home: e.b.home}, args...)
	require.Equal(t, 0, res.code, res.stderr)
	var d hitl.Decision
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &d))
	return d
}

// edge decides one case; false when the edge does not take it or its
// deny does not name the rule.
type edge func(t *testing.T, c edgeCase) (edgeOutcome, bool)

func (e edgeRunner) edges() map[string]edge {
	ctx := context.Background()
	o := cliOpts{home: e.b.home}
	edges := map[string]edge{}
	if !e.hooksOnly {
		edges["hitl policy check"] = func(t *testing.T, c edgeCase) (edgeOutcome, bool) {
			d := e.check(t, c)
			if d.Effect != hitl.EffectAsk {
				return edgeOutcome{string(d.Effect), d.Rule, 0}, true
			}
			return edgeOutcome{string(d.Effect), d.Rule, max(d.Quorum, 1)}, true
		}
		edges["POST /api/approvals"] = func(t *testing.T, c edgeCase) (edgeOutcome, bool) {
			run := nextEdgeRun("e")
			out := e.post(t, c, run)
			if out.Effect == hitl.EffectAsk {
				return e.asked(t, run), true
			}
			return edgeOutcome{string(out.Effect), out.Rule, 0}, true
		}
		edges["hitl gate"] = func(t *testing.T, c edgeCase) (edgeOutcome, bool) {
			if c.argv == nil {
				return edgeOutcome{}, false
			}
			run := nextEdgeRun("e")
			if e.b.proj != "" {
				t.Chdir(e.b.proj) // hitl gate places paths where it runs
			}
			ch := startCLIWith(ctx, e.m, o, append([]string{"gate", "--run", run, "--"}, c.argv...)...)
			if c.effect == "ask" {
				got := e.asked(t, run)
				assert.NotEqual(t, 0, result(t, ch).code, "a cancelled approval never runs the command")
				return got, true
			}
			res := result(t, ch)
			switch res.code {
			case exitDenied:
				return edgeOutcome{"deny", c.rule, 0}, strings.Contains(res.stderr, c.rule)
			case 0:
				return edgeOutcome{"allow", c.rule, 0}, true
			}
			t.Fatalf("hitl gate %v: exit %d: %s", c.argv, res.code, res.stderr)
			return edgeOutcome{}, false
		}
	}
	for _, hook := range []struct{ name, file, agent, prefix string }{
		{"Claude Code PreToolUse", "claude_pretooluse_bash.json", "claude", "claude-"},
		{"Claude Code PermissionRequest", "claude_permissionrequest_bash.json", "claude", "claude-"},
		{"Codex PreToolUse", "codex_pretooluse_bash.json", "codex", "codex-"},
		{"Codex PermissionRequest", "codex_permissionrequest_bash.json", "codex", "codex-"},
	} {
		edges[hook.name] = func(t *testing.T, c edgeCase) (edgeOutcome, bool) {
			sid := nextEdgeRun("s")
			set := map[string]any{"session_id": sid, "cwd": e.b.proj, "tool_name": c.tool, "tool_input": c.input, "tool_use_id": "toolu_" + sid}
			if e.b.proj == "" {
				delete(set, "cwd") // the recorded event's, a directory that does not exist here
			}
			if e.mode != "" {
				set["permission_mode"] = e.mode
			}
			ev := hookEvent(t, hook.file, set)
			var ch <-chan cliResult
			if e.process {
				ch = e.hookProcess(t, ev, hook.agent)
			} else {
				ch = hookRun(ctx, e.m, o, ev, hook.agent)
			}
			if c.effect == "ask" {
				got := e.asked(t, hook.prefix+sid)
				r := result(t, ch)
				assert.Equal(t, 0, r.code, r.stderr)
				return got, true
			}
			r := result(t, ch)
			if hook.name == "Codex PreToolUse" && c.effect == "allow" {
				// Codex honours only a deny here: an allow prints nothing
				// and Codex's own approval follows (PermissionRequest).
				assert.Equal(t, 0, r.code, r.stderr)
				assert.Empty(t, r.stdout, "Codex PreToolUse answers an allow with no decision")
				return edgeOutcome{"allow", c.rule, 0}, r.stdout == ""
			}
			d := decoded(t, r)
			effect, reason := d.PermissionDecision, d.PermissionDecisionReason
			if d.Decision != nil {
				effect, reason = d.Decision.Behavior, d.Decision.Message
			}
			if effect == "deny" {
				return edgeOutcome{"deny", c.rule, 0}, strings.Contains(reason, c.rule)
			}
			return edgeOutcome{effect, c.rule, 0}, true
		}
	}
	return edges
}

// decide decides cases through every edge and checks each answer; then
// through MCP permission_prompt and the learned-rule path.
func (e edgeRunner) decide(t *testing.T, cases []edgeCase) {
	t.Helper()
	if e.process && e.program == "" {
		e.program = hitlProgram(t)
	}
	for name, edge := range e.edges() {
		t.Run(name, func(t *testing.T) {
			for _, c := range cases {
				got, ok := edge(t, c)
				if !ok && c.argv == nil && name == "hitl gate" {
					continue
				}
				assert.True(t, ok, "%s: %v: the answer names rule %s", name, c.input, c.rule)
				assert.Equal(t, c.want(), got, "%s: %v", name, c.input)
			}
		})
	}
	if e.hooksOnly {
		return
	}
	t.Run("MCP permission_prompt", func(t *testing.T) {
		run := nextEdgeRun("mcp-")
		args := []string{"--run", run, "--progress-every", "200ms"}
		if e.b.proj != "" {
			args = append(args, "--dir", e.b.proj)
		}
		client := nodeClient(t, e.m, args...)
		for _, c := range cases {
			id := nextEdgeRun("q")
			client.call(id, "permission_prompt", map[string]any{"tool_name": c.tool, "input": c.input, "tool_use_id": "toolu_" + id})
			var got edgeOutcome
			if c.effect == "ask" {
				got = e.asked(t, run)
			}
			var d map[string]any
			res := client.result(id)
			require.NoError(t, json.Unmarshal([]byte(res.text()), &d), res.text())
			if c.effect != "ask" {
				got = edgeOutcome{fmt.Sprint(d["behavior"]), c.rule, 0}
				if d["behavior"] == "deny" {
					assert.Contains(t, d["message"], c.rule, c.input)
				}
			}
			assert.Equal(t, c.want(), got, "%v", c.input)
		}
	})
	t.Run("learned rules", func(t *testing.T) {
		// an ask a person may teach only when the call is fully understood:
		// "always" is refused for the rest, so no learned rule allows them
		for _, c := range cases {
			if c.effect != "ask" {
				continue
			}
			run := nextEdgeRun("l")
			require.Equal(t, hitl.EffectAsk, e.post(t, c, run).Effect, c.input)
			q := awaitPending(t, e.m, run, 1)[0]
			assert.Equal(t, c.learnable, q.Learnable, "%v: learnable", c.input)
			if !c.learnable && len(q.Approvers) == 0 {
				res := cli(context.Background(), e.m, "", "answer", q.ID, "approve", "--always")
				assert.NotEqual(t, 0, res.code, "%v: always is refused", c.input)
				assert.Contains(t, res.stderr, "always allow", c.input)
			}
			_, err := e.m.Service.Questions.Cancel(principaltest.As(context.Background(), "admin:test"), q.ID, "edge test")
			require.NoError(t, err)
		}
	})
}
