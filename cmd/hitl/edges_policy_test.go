package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
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

// sh is line as hitl gate's arguments: bash reading it.
func sh(line string) []string { return []string{"bash", "-c", line} }

// edgeCases: with HOME=/home/u and no working directory.
var edgeCases = []edgeCase{
	bashCase("git status", []string{"git", "status"}, "allow", "status"),
	bashCase("/bin/rm -r -f /tmp/hitl-edge-x", []string{"/bin/rm", "-r", "-f", "/tmp/hitl-edge-x"}, "deny", "no-rm-rf"),
	bashCase("rm --recursive --force /tmp/hitl-edge-x", []string{"rm", "--recursive", "--force", "/tmp/hitl-edge-x"}, "deny", "no-rm-rf"),
	bashCase("terraform -chdir=. apply", []string{"terraform", "-chdir=.", "apply"}, "ask", "two-person-apply").quorum2(),
	bashCase("make deploy-q; let 'a[$(touch P)]=1'", sh("make deploy-q; let 'a[$(touch P)]=1'"), "ask", "default"),
	bashCase("sed -n '1e touch P' f", []string{"sed", "-n", "1e touch P", "f"}, "ask", "default"),
	bashCase("ls < ~/.ssh/id_rsa", sh("ls < ~/.ssh/id_rsa"), "deny", "keys"),
	bashCase("echo x > ~/work/out", nil, "allow", "echo, work"),
	// friction never fails open on a part the decider cannot read
	bashCase("echo rm -rf x | sh", sh("echo rm -rf x | sh"), "deny", "no-rm-rf"),
	bashCase("echo terraform apply | bash", sh("echo terraform apply | bash"), "ask", "two-person-apply").quorum2(),
	bashCase(`python3 -c "import os; os.system('terraform apply')"`, []string{"python3", "-c", "import os; os.system('terraform apply')"}, "ask", "two-person-apply").quorum2(),
	bashCase("git -c alias.x='!terraform apply' x", []string{"git", "-c", "alias.x=!terraform apply", "x"}, "ask", "two-person-apply").quorum2(),
	bashCase("echo ls | sh", sh("echo ls | sh"), "ask", "default"),
	// where bash reads the bytes differently from the parser, the line is opaque
	bashCase("echo # \\\nrm -rf /tmp/hitl-edge-x", sh("echo # \\\nrm -rf /tmp/hitl-edge-x"), "deny", "no-rm-rf"),
	bashCase("echo \"$\\\n(terraform apply)\"", sh("echo \"$\\\n(terraform apply)\""), "ask", "two-person-apply").quorum2(),
	bashCase("find . $\\\n'-exec' rm -rf /tmp/hitl-edge-x ';'", sh("find . $\\\n'-exec' rm -rf /tmp/hitl-edge-x ';'"), "deny", "no-rm-rf"),
	bashCase("echo # \\\ntouch /tmp/hitl-edge-p", sh("echo # \\\ntouch /tmp/hitl-edge-p"), "ask", "default"),
}

func TestEveryEdgeDecidesAlike(t *testing.T) {
	t.Setenv("HOME", "/home/u") // the MCP server runs beside the agent and reads it
	m := startMain(t, noLimits, edgeRules)
	e := edgeRunner{m: m, b: agentBox{home: "/home/u"}}
	e.decide(t, edgeCases)
	t.Run("a learned rule allows exactly what was understood", func(t *testing.T) {
		ctx := context.Background()
		assert.Contains(t, cli(ctx, m, "", "policy", "rules").stdout, "No learned rules")
		// a fully understood command is learned exactly, and every edge
		// then allows it
		c := bashCase("terraform plan", nil, "ask", "default").canLearn()
		run := nextEdgeRun("e")
		require.Equal(t, hitl.EffectAsk, e.post(t, c, run).Effect)
		q := awaitPending(t, m, run, 1)[0]
		assert.True(t, q.Learnable)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--always").code)
		d := e.check(t, c)
		assert.Equal(t, hitl.EffectAllow, d.Effect)
		assert.True(t, strings.HasPrefix(d.Rule, "learned "), d.Rule)
		d = e.check(t, bashCase("terraform plan; let 'a[$(touch P)]=1'", nil, "", ""))
		assert.Equal(t, hitl.EffectAsk, d.Effect, "a learned command never allows a line with a hidden part")
	})
}
