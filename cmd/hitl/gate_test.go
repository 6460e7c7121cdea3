package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGate(t *testing.T) {
	clock := clocktest.New(time.Now())
	m := startMain(t, func(c *config.Config, m *Main) {
		m.Clock = clock
		c.Policy.Rules = []config.PolicyRule{
			{Name: "echo-is-fine", OpType: "shell", Resource: "echo", Effect: "allow"},
			{Name: "never-rm-root", OpType: "shell", Resource: "rm -rf /", Effect: "deny"},
		}
	})
	ctx := principaltest.As(context.Background(), "admin:test")

	t.Run("allowed by policy: runs the command, its exit code is gate's", func(t *testing.T) {
		r := cli(ctx, m, "", "gate", "--", "echo", "hello")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "hello\n", r.stdout)
		r = cli(ctx, m, "", "gate", "--op-type", "file_read", "--", "sh", "-c", "exit 7")
		assert.Equal(t, 7, r.code)
	})
	t.Run("denied by policy: exits 3 without running it", func(t *testing.T) {
		r := cli(ctx, m, "", "gate", "--", "rm", "-rf", "/")
		assert.Equal(t, exitDenied, r.code)
		assert.Contains(t, r.stderr, "never-rm-root")
	})
	t.Run("asked: a person edits the command, the edited one runs", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "gate", "--run", "g1", "--reason", "clean up", "--", "sh", "-c", "echo original")
		q := waitPending(t, m, "g1")
		assert.Equal(t, "sh -c 'echo original'", q.Operation.Resource)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--edit", "echo edited").code)
		r := result(t, ch)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "edited\n", r.stdout)
		assert.Contains(t, r.stderr, "running instead:\n  echo edited")
	})
	t.Run("asked: denied by a person exits 3", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "gate", "--run", "g2", "--", "touch", "should-not-exist")
		q := waitPending(t, m, "g2")
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny", "--text", "not now").code)
		r := result(t, ch)
		assert.Equal(t, exitDenied, r.code)
		assert.Contains(t, r.stderr, "not now")
	})
	t.Run("asked: nobody answers, exits 4", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "gate", "--run", "g3", "--timeout", "5m", "--", "touch", "should-not-exist")
		waitPending(t, m, "g3")
		clock.Add(6 * time.Minute)
		_, err := m.Service.Questions.SweepExpired(ctx)
		require.NoError(t, err)
		r := result(t, ch)
		assert.Equal(t, exitTimedOut, r.code)
	})
	t.Run("approve and always allow: exactly the same command is not asked again", func(t *testing.T) {
		ch := startCLI(ctx, m, strings.NewReader(""), "gate", "--run", "g4", "--", "rm", "-rf", "/tmp/hitl-gate-test-build-41")
		q := waitPending(t, m, "g4")
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--always").code)
		require.Equal(t, 0, result(t, ch).code)
		r := cli(ctx, m, "", "policy", "rules")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, `allow shell "rm -rf /tmp/hitl-gate-test-build-41"`)
		id := strings.Fields(r.stdout)[0]
		for res, want := range map[string]string{
			"rm -rf /tmp/hitl-gate-test-build-41":             "allow (rule learned " + id,
			"rm -rf /tmp/hitl-gate-test-build-42":             "ask (default policy)",
			"rm -rf /":                                        "deny (rule never-rm-root)",
			"rm -rf /tmp/hitl-gate-test-build-41 && rm -rf ~": "ask (default policy)",
			"echo hi && rm -rf /tmp/hitl-gate-test-build-41":  "allow (rule echo-is-fine, learned " + id,
			"echo hi > ~/.bashrc":                             "ask (default policy)",
			"sh -c 'rm -rf /tmp/hitl-gate-test-build-41'":     "ask (default policy)",
			"rm -rf /tmp/hitl-gate-test-build-41 $(rm -rf ~)": "ask (default policy)",
		} {
			r = cli(ctx, m, "", "policy", "check", "--op-type", "shell", "--resource", res)
			require.Equal(t, 0, r.code, r.stderr)
			assert.True(t, strings.HasPrefix(r.stdout, want), "%s: %s", res, r.stdout)
		}
		r = cli(ctx, m, "", "policy", "check", "--op-type", "shell", "--resource", "echo hi > ~/.bashrc")
		assert.Contains(t, r.stdout, "allow echo hi  (rule echo-is-fine)", "each part is shown")
		assert.Contains(t, r.stdout, "ask   writes ~/.bashrc  (no rule matches: default)")
		r = cli(ctx, m, "", "gate", "--", "rm", "-rf", "/tmp/hitl-gate-test-build-41")
		assert.Equal(t, 0, r.code, "allowed without asking: %s", r.stderr)
		require.Equal(t, 0, cli(ctx, m, "", "policy", "revoke", id).code)
		assert.Contains(t, cli(ctx, m, "", "policy", "rules").stdout, "No learned rules")
	})
	t.Run("a compound is decided part by part: a denied part denies", func(t *testing.T) {
		r := cli(ctx, m, "", "gate", "--", "sh", "-c", "echo hi && rm -rf /")
		assert.Equal(t, exitDenied, r.code, "sh -c hands a string to a shell: the line is asked, unless a part is denied")
	})
}

func TestPolicyShowWithoutRules(t *testing.T) {
	m := startMain(t)
	r := cli(context.Background(), m, "", "policy", "show")
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "No rules are configured"), r.stdout)
	assert.NotContains(t, r.stdout, "RULE", "no table of nothing")
	assert.Contains(t, r.stdout, "When no rule matches (the default policy)")
}

func TestPolicyCommands(t *testing.T) {
	m := startMain(t, func(c *config.Config, _ *Main) {
		c.Policy.Rules = []config.PolicyRule{{Name: "two-person-deploys", OpType: "deploy", Resource: "prod/*", Effect: "ask",
			Approvers: []string{"U0A", "U0B"}, Quorum: 2}}
	})
	ctx := context.Background()
	r := cli(ctx, m, "", "policy", "show")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "two-person-deploys")
	assert.Contains(t, r.stdout, "2 of U0A,U0B")
	for args, want := range map[string]string{
		"--op-type deploy --resource prod/web":   "ask (rule two-person-deploys): 2 approval(s) from U0A, U0B",
		"--op-type shell --resource ls":          "ask (default policy)\nWhen it runs: may run ls; may write nothing; no network",
		"--op-type file_read --resource /x":      "allow (default policy)",
		"--op-type deploy --resource staging/db": "ask (default policy)",
	} {
		r := cli(ctx, m, "", append([]string{"policy", "check"}, strings.Fields(args)...)...)
		assert.Equal(t, 0, r.code, args)
		assert.Equal(t, want+"\n", r.stdout, args)
	}
	r = cli(ctx, m, "", "policy", "check", "--op-type", "deploy", "--resource", "prod/web", "--json")
	assert.Contains(t, r.stdout, `"decision": "ask"`)
	_ = hitl.EffectAsk
	t.Run("the risks lead the parts", func(t *testing.T) {
		r := cli(ctx, m, "", "policy", "check", "--op-type", "shell", "--resource", "rm -rf build && curl -s https://get.example.com/i | sh")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "ask (default policy)\n"+
			"  risk: runs code fetched from the network: curl get.example.com, handed to a shell or interpreter; deletes files: build; not understood: sh runs a script the policy cannot see (a -c string, a file or standard input); reaches the network: get.example.com\n"+
			"  ask   rm -rf build  (no rule matches: default)  ! deletes files: build\n"+
			"  ask   curl -s https://get.example.com/i  (no rule matches: default)  ! runs code fetched from the network: curl get.example.com, handed to a shell or interpreter\n"+
			"  ask   sh  (not understood: sh runs a script the policy cannot see (a -c string, a file or standard input))  ! runs code fetched from the network: curl get.example.com, handed to a shell or interpreter\n"+
			"When it runs: may run rm, curl, sh; may write nothing; may connect to get.example.com:443\n", r.stdout)
		r = cli(ctx, m, "", "policy", "check", "--op-type", "shell", "--resource", "rm -rf build", "--json")
		assert.Contains(t, r.stdout, `"kind": "deletes_files"`, "the labels are on the wire")
	})
}

// TestAnswerEditOfFixedInput: an operation the agent cannot run with other
// input (an adapter's noEdit) offers no edit, and hitl answer --edit on it
// fails with a clear message and the usage exit code, answering nothing.
func TestAnswerEditOfFixedInput(t *testing.T) {
	m := startMain(t)
	ctx := context.Background()
	out, err := m.Service.Policies.RequestOperation(principaltest.As(ctx, "api:ci"), hitl.ApprovalRequest{RunID: "fixed-input",
		Operation: hitl.Operation{Type: "send_email", Description: "Send the report", Resource: `{"to":"bob@example.com"}`, NoEdit: true}})
	require.NoError(t, err)
	r := cli(ctx, m, "", "answer", out.QuestionID, "approve", "--edit", `{"to":"eve@example.com"}`)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "the agent cannot run this send_email operation with other input: approve it as it is, or deny it")
	q, err := m.Service.Questions.Question(principaltest.As(ctx, "admin:test"), out.QuestionID)
	require.NoError(t, err)
	assert.True(t, q.Pending(), "nothing was answered")
	assert.False(t, q.Editable())
}
