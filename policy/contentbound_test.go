package policy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLearnedRulesBindTheFilesTheyRun: a learned rule for a line that runs
// a file the agent can change holds that file's hash; a changed file (or
// one nobody hashed) is another operation, so it asks again.
func TestLearnedRulesBindTheFilesTheyRun(t *testing.T) {
	h1, h2 := strings.Repeat("a", 64), strings.Repeat("b", 64)
	var taught *hitl.LearnedRule
	d := policy.Decider{Parse: shell.Parse, Now: time.Unix(100, 0), Learned: func(k hitl.LearnedRuleKey) (*hitl.LearnedRule, error) {
		if taught != nil && taught.Key() == k {
			return taught, nil
		}
		return nil, nil
	}}
	decide := func(line string, hashes map[string]string) hitl.Decision {
		t.Helper()
		op := hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: line, Agent: "api:ci", Cwd: "/w", Home: "/home/u", Hashes: hashes}
		require.NoError(t, policy.ValidateOperation(&op))
		dec, err := d.Decide(op)
		require.NoError(t, err)
		return dec
	}
	for _, tc := range []struct {
		line string
		file string // the file it runs
	}{
		{"python3 tool.py --fast", "/w/tool.py"},
		{"./scripts/run.sh", "/w/scripts/run.sh"},
		{"node ~/bin/x.js", "/home/u/bin/x.js"},
		{"pytest tests/test_a.py", "/w/tests/test_a.py"},
		{"/w/bin/tool", "/w/bin/tool"},
	} {
		taught = nil
		assert.False(t, decide(tc.line, nil).Learnable, "%s: nobody hashed %s", tc.line, tc.file)
		first := decide(tc.line, map[string]string{tc.file: h1})
		require.True(t, first.Learnable, tc.line)
		assert.Contains(t, first.Teaches.Resource, tc.file+" sha256:"+h1, tc.line)
		k := *first.Teaches
		taught = &hitl.LearnedRule{ID: "l1", Agent: k.Agent, OpType: k.OpType, Resource: k.Resource, ExpiresAt: time.Unix(1000, 0)}
		assert.Equal(t, allow, decide(tc.line, map[string]string{tc.file: h1}).Effect, "%s: the same file", tc.line)
		assert.Equal(t, ask, decide(tc.line, map[string]string{tc.file: h2}).Effect, "%s: the file changed", tc.line)
		assert.Equal(t, ask, decide(tc.line, map[string]string{tc.file: hitl.FileAbsent}).Effect, "%s: the file is gone", tc.line)
		assert.Equal(t, ask, decide(tc.line, nil).Effect, "%s: nobody hashed it", tc.line)
	}
	// a line that runs nothing the agent wrote is learned as it is
	taught = nil
	plain := decide("terraform plan", nil)
	require.True(t, plain.Learnable)
	assert.Equal(t, "terraform plan", plain.Teaches.Resource)
}

// TestHashesAreValidated: what an edge sends about files' content is
// checked like the rest of the operation.
func TestHashesAreValidated(t *testing.T) {
	for _, tc := range []struct {
		hashes map[string]string
		ok     bool
	}{
		{map[string]string{"/w/x": strings.Repeat("0", 64)}, true},
		{map[string]string{"/w/x": hitl.FileAbsent}, true},
		{map[string]string{"x": strings.Repeat("0", 64)}, false},
		{map[string]string{"/w/x": "abc"}, false},
		{map[string]string{"/w/x": strings.Repeat("G", 64)}, false},
	} {
		op := hitl.Operation{Type: hitl.OpShell, Description: "x", Hashes: tc.hashes}
		assert.Equal(t, tc.ok, policy.ValidateOperation(&op) == nil, "%v", tc.hashes)
	}
	assert.Error(t, policy.ValidateOperation(&hitl.Operation{Type: hitl.OpShell, Description: "x", Cwd: "rel"}))
}
