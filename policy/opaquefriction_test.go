package policy_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
)

// readOnlyTeam is a team's benign read-only allows, a rm -rf deny and a
// two-person terraform apply rule: the attack setting.
var readOnlyTeam = func() []hitl.Rule {
	rules := []hitl.Rule{
		{Name: "no-rm-rf", OpType: hitl.OpShell, Resource: "rm -rf", Effect: deny},
		{Name: "two-person-apply", OpType: hitl.OpShell, Resource: "terraform apply", Effect: ask, Quorum: 2, Approvers: []string{"S0OPS", "U0LEAD"}},
	}
	for _, c := range []string{"echo", "cat", "grep", "git log", "git status", "find", "ls", "python3 tool.py"} {
		rules = append(rules, hitl.Rule{Name: "allow " + c, OpType: hitl.OpShell, Resource: c, Effect: allow})
	}
	return rules
}()

// TestOpaqueMeetsFrictionInItsText: a part the decider cannot read gets
// the strictest friction of every rule whose command words appear in the
// line, and is never learnable. Each row fails when textFriction (or the
// lexer check that makes the line opaque) is removed.
func TestOpaqueMeetsFrictionInItsText(t *testing.T) {
	for _, tc := range []struct {
		line   string
		effect hitl.Effect
		rule   string
	}{
		{"echo rm -rf x | sh", deny, "no-rm-rf"},
		{"echo 'rm -fr x' | bash", deny, "no-rm-rf"},
		{`eval 'r''m -rf x'`, deny, "no-rm-rf"},
		{`python3 -c "import os; os.system('terraform apply')"`, ask, "two-person-apply"},
		{"echo terraform apply | bash", ask, "two-person-apply"},
		{"git -c alias.x='!terraform apply' x", ask, "two-person-apply"},
		{"echo terraform -chdir=. apply | sh", ask, "two-person-apply"},
		{"echo rm -rf x 'unterminated", deny, "no-rm-rf"},
		// the lexer's disagreements with bash
		{"echo # \\\nrm -rf /tmp/P", deny, "no-rm-rf"},
		{"echo \"$\\\n(terraform apply)\"", ask, "two-person-apply"},
		{"find . $\\\n'-exec' rm -rf /tmp/P ';'", deny, "no-rm-rf"},
		{"echo # \\\nterraform apply", ask, "two-person-apply"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			d := decideLine(t, readOnlyTeam, "/home/u", tc.line)
			assert.Equal(t, tc.effect, d.Effect, "%+v", d.Parts)
			assert.Equal(t, tc.rule, d.Rule, "%+v", d.Parts)
			if tc.rule == "two-person-apply" {
				assert.Equal(t, 2, d.Quorum)
				assert.Equal(t, []string{"S0OPS", "U0LEAD"}, d.Approvers)
			}
			assert.False(t, d.Learnable, "an opaque line is never learnable")
		})
	}
	// friction does not reach what the policy reads: echo prints words
	for _, line := range []string{"echo rm -rf x", "grep -rn 'terraform apply' docs", "docker ps # rm -rf"} {
		d := decideLine(t, readOnlyTeam, "/home/u", line)
		assert.NotEqual(t, deny, d.Effect, line)
		assert.LessOrEqual(t, d.Quorum, 1, line)
	}
	// a line with no friction words is opaque yet a plain ask
	d := decideLine(t, readOnlyTeam, "/home/u", "echo ls | sh")
	assert.Equal(t, ask, d.Effect)
	assert.Equal(t, "default", d.Rule)
}
