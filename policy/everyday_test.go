package policy_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/require"
)

// agentTeamRules are a read-only team's rules: what its agents may read
// and test without asking, a rm -rf deny and a two-person apply.
var agentTeamRules = func() []policy.Rule {
	rules := []policy.Rule{
		{Name: "no-rm-rf", OpType: policy.OpShell, Resource: "rm -rf", Effect: deny},
		{Name: "two-person-apply", OpType: policy.OpShell, Resource: "terraform apply", Effect: ask, Approvers: []string{"U0A", "U0B"}, Quorum: 2},
	}
	for _, c := range []string{"git status", "git diff", "git log", "git show", "git branch", "git rev-parse", "ls", "pwd", "cat", "head",
		"tail", "wc", "grep", "rg", "find", "sed -n", "jq", "go test", "go vet", "go build", "npm test", "npm run lint", "pytest",
		"make test", "which", "echo", "env", "diff", "sort", "uniq", "docker ps", "docker run", "tree", "du", "stat", "file"} {
		rules = append(rules, policy.Rule{Name: c, OpType: policy.OpShell, Resource: c, Effect: allow})
	}
	return rules
}()

// agentLines reads testdata/everyday_agent_lines.txt: each line and
// whether it is genuinely read-only.
func agentLines(t testing.TB) (lines []string, readOnly []bool) {
	t.Helper()
	data, err := os.ReadFile("testdata/everyday_agent_lines.txt")
	require.NoError(t, err)
	for _, l := range strings.Split(string(data), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		s, err := strconv.Unquote(l[2:])
		require.NoError(t, err, l)
		lines = append(lines, s)
		readOnly = append(readOnly, l[0] == 'r')
	}
	return lines, readOnly
}

// everydayAllowedAtMain is how many of the read-only lines main (before
// issue 31's lexer check) allowed under agentTeamRules: measured by
// running this test on main's tree (docs/benchmarks.md).
const everydayAllowedAtMain = 61

// TestEverydayAgentLines: the lexer check and the friction on opaque
// lines newly ask for no more than 5 % of the genuinely read-only lines
// agents run.
func TestEverydayAgentLines(t *testing.T) {
	lines, readOnly := agentLines(t)
	d := policy.Decider{Rules: agentTeamRules, Parse: shell.Parse}
	total, ro, allowed := len(lines), 0, 0
	for i, line := range lines {
		got, err := d.Decide(policy.Operation{Type: policy.OpShell, Description: "x", Resource: line, Agent: "api:ci", Home: "/home/u", Cwd: "/home/u/proj"})
		require.NoError(t, err)
		if !readOnly[i] {
			require.NotEqual(t, allow, got.Effect, "%q writes or runs more: no read-only rule allows it", line)
			continue
		}
		ro++
		if got.Effect == allow {
			allowed++
		} else {
			t.Logf("asks: %q (%s)", line, got.Explain())
		}
	}
	t.Logf("%d lines, %d read-only: %d allowed (main: %d)", total, ro, allowed, everydayAllowedAtMain)
	require.GreaterOrEqual(t, total, 60)
	newlyAsking := everydayAllowedAtMain - allowed
	require.LessOrEqual(t, newlyAsking*100, ro*5, "%d of %d read-only lines newly ask", newlyAsking, ro)
}
