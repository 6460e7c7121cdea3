package policy_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
)

// TestOperandsMeetFileFriction: the files a command's operands name meet
// the file rules that deny or add approvers, in every spelling of the
// path (cleaned, ~ expanded or unknown, --opt=PATH), while operands
// never make a line less strict and leave ordinary lines allowed.
func TestOperandsMeetFileFriction(t *testing.T) {
	rules := []hitl.Rule{
		{Name: "keys", OpType: hitl.OpFileRead, Resource: "/home/*/.ssh/*", Effect: deny},
		{Name: "prod-data", OpType: hitl.OpFileDelete, Resource: "/srv/prod/*", Effect: ask, Approvers: []string{"U0A", "U0B"}, Quorum: 2},
		{Name: "etc", OpType: hitl.OpFileWrite, Resource: "/etc/*", Effect: deny},
		{Name: "cat", OpType: hitl.OpShell, Resource: "cat", Effect: allow},
		{Name: "grep", OpType: hitl.OpShell, Resource: "grep", Effect: allow},
		{Name: "cp", OpType: hitl.OpShell, Resource: "cp", Effect: allow},
		{Name: "rm", OpType: hitl.OpShell, Resource: "rm", Effect: allow},
		{Name: "touch", OpType: hitl.OpShell, Resource: "touch", Effect: allow},
	}
	for _, tc := range []struct {
		line, home string
		effect     hitl.Effect
		rule       string
		quorum     int
	}{
		{"cat ~/.ssh/id_rsa", "/home/u", deny, "keys", 0},
		{"cat ~/.ssh/id_rsa", "", deny, "keys", 0}, // the home is not known: every home is a candidate
		{"cat //home/u/.ssh/id_rsa", "/home/u", deny, "keys", 0},
		{"cat /etc/../home/u/.ssh/id_rsa", "/home/u", deny, "keys", 0},
		{"cat /home/u/./.ssh//id_rsa", "/home/u", deny, "keys", 0},
		{"grep -r key --file=/home/u/.ssh/id_rsa .", "/home/u", deny, "keys", 0},
		{"env cat /home/u/.ssh/config", "/home/u", deny, "keys", 0},
		{"cp /home/u/.ssh/id_rsa /tmp/k", "/home/u", deny, "keys", 0},
		{"cat README.md; cat ~/.ssh/id_rsa", "/home/u", deny, "keys", 0},
		{"rm /srv/prod/db", "", ask, "prod-data", 2},
		{"rm -f /srv/prod/../prod/db", "", ask, "prod-data", 2},
		{"touch /etc/passwd", "", deny, "etc", 0},
		{"cp notes /etc/motd", "", deny, "etc", 0},
		{"cat /srv/prod/db", "", allow, "cat", 0}, // reading is not deleting
		{"cat /etc/hosts", "", allow, "cat", 0},   // nor writing
		// no working directory was sent: a relative operand may be any
		// file of that name, ~/.ssh's too (unplaced.go); a pattern is none
		{"cat README.md", "/home/u", ask, "keys", 0},
		{"grep -rn TODO src", "/home/u", ask, "keys", 0},
		{"rm db", "", ask, "prod-data", 2},
		{"grep TODO", "/home/u", allow, "grep", 0},
		{"cat /etc/hosts", "/home/u", allow, "cat", 0},
	} {
		t.Run(tc.line+" home="+tc.home, func(t *testing.T) {
			d := decideLine(t, rules, tc.home, tc.line)
			assert.Equal(t, tc.effect, d.Effect, "%+v", d.Parts)
			assert.Contains(t, d.Rule, tc.rule, "%+v", d.Parts)
			if tc.quorum > 0 {
				assert.Equal(t, tc.quorum, d.Quorum)
			}
			// asking only because nobody sent the working directory, a
			// command may be taught: the same friction meets it again at
			// every later decision
			noCwd := map[string]bool{"cat README.md": true, "grep -rn TODO src": true}
			if tc.effect != allow && !noCwd[tc.line] {
				assert.False(t, d.Learnable, "a line a friction rule matches is never learnable")
			}
		})
	}
}
