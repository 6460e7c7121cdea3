package policy_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// agentTeamRules are a read-only team's rules: what its agents may read
// and test without asking (cd included: agents start 37 % of their lines
// with `cd DIR &&`), a rm -rf deny and a two-person apply.
var agentTeamRules = func() []hitl.Rule {
	rules := []hitl.Rule{
		{Name: "no-rm-rf", OpType: hitl.OpShell, Resource: "rm -rf", Effect: deny},
		{Name: "two-person-apply", OpType: hitl.OpShell, Resource: "terraform apply", Effect: ask, Approvers: []string{"U0A", "U0B"}, Quorum: 2},
	}
	for _, c := range []string{"git status", "git diff", "git log", "git show", "git branch", "git rev-parse", "ls", "pwd", "cat", "head",
		"tail", "wc", "grep", "rg", "find", "sed -n", "jq", "go test", "go vet", "go build", "npm test", "npm run lint", "pytest",
		"make test", "which", "echo", "env", "diff", "sort", "uniq", "docker ps", "docker run", "tree", "du", "stat", "file", "cd"} {
		rules = append(rules, hitl.Rule{Name: c, OpType: hitl.OpShell, Resource: c, Effect: allow})
	}
	return rules
}()

// agentLine is one line of testdata/everyday_agent_lines.txt.
type agentLine struct {
	line     string
	readOnly bool // genuinely read-only: it runs tests or only reads
	sourced  bool // collected from a public agent transcript ("# source:")
}

// agentLines reads testdata/everyday_agent_lines.txt.
func agentLines(t testing.TB) []agentLine {
	t.Helper()
	data, err := os.ReadFile("testdata/everyday_agent_lines.txt")
	require.NoError(t, err)
	var lines []agentLine
	sourced := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "# source:") {
			sourced = true
		}
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		s, err := strconv.Unquote(l[2:])
		require.NoError(t, err, l)
		lines = append(lines, agentLine{line: s, readOnly: l[0] == 'r', sourced: sourced})
	}
	return lines
}

// everydayCounts is how many genuinely read-only lines the policy
// allows: all, and those collected from transcripts.
type everydayCounts struct{ all, sourced int }

// everydayBefore is what the policy allowed under agentTeamRules before
// issue 31 (the tree before the i31-lexer merge, a2de931^1), with the
// working directory sent (as the hooks, MCP and hitl gate send it) and
// without (hitl policy check without --cwd, an API client that sends
// none): measured by running this file's lines there (docs/benchmarks.md,
// "Issue 31: everyday agent lines").
var everydayBefore = map[string]everydayCounts{"with cwd": {99, 38}, "without cwd": {99, 38}}

// TestEverydayAgentLines: issue 31's changes newly ask for no more than
// 5 % of the genuinely read-only lines agents run (with the working
// directory the edges send), and no line that writes or runs more is
// allowed by read-only rules.
func TestEverydayAgentLines(t *testing.T) {
	d := policy.Decider{Rules: agentTeamRules, Parse: shell.Parse}
	lines := agentLines(t)
	for _, v := range []struct{ name, cwd string }{{"with cwd", "/home/u/proj"}, {"without cwd", ""}} {
		var ro, sourced, sourcedRO int
		var allowed everydayCounts
		for _, l := range lines {
			got, err := d.Decide(hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: l.line, Agent: "api:ci", Home: "/home/u", Cwd: v.cwd})
			require.NoError(t, err)
			if l.sourced {
				sourced++
			}
			if !l.readOnly {
				require.NotEqual(t, allow, got.Effect, "%q writes or runs more: no read-only rule allows it", l.line)
				continue
			}
			ro++
			if l.sourced {
				sourcedRO++
			}
			if got.Effect == allow {
				allowed.all++
				if l.sourced {
					allowed.sourced++
				}
			} else {
				t.Logf("%s asks: %q (%s)", v.name, l.line, got.Explain())
			}
		}
		before := everydayBefore[v.name]
		t.Logf("%s: %d lines, %d read-only: %d allowed (before issue 31: %d)", v.name, len(lines), ro, allowed.all, before.all)
		t.Logf("%s: collected from transcripts: %d lines, %d read-only: %d allowed (before issue 31: %d)", v.name, sourced, sourcedRO, allowed.sourced, before.sourced)
		require.GreaterOrEqual(t, sourced, 60, "at least 60 lines from public agent transcripts")
		assert.LessOrEqual(t, (before.all-allowed.all)*100, ro*5, "%s: %d of %d read-only lines newly ask", v.name, before.all-allowed.all, ro)
		assert.LessOrEqual(t, (before.sourced-allowed.sourced)*100, sourcedRO*5, "%s: %d of %d collected read-only lines newly ask", v.name, before.sourced-allowed.sourced, sourcedRO)
	}
}
