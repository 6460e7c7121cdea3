package auth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hitlbot/hitl/auth"
)

// TestSlackIDs: who a question may be routed to (assignees, approvers,
// escalate_to) and where it may be posted (a channel) are checked here,
// once, for questions, policy rules and config alike.
func TestSlackIDs(t *testing.T) {
	for id, want := range map[string]bool{
		"U0ALICE": true, "W0ENTERPRISE": true, "S0ONCALL": true,
		"": false, "U": false, "u0alice": false, "C0RUNS": false, "slack:U0ALICE": false,
		"U0ALICE ": false, "U0" + string(make([]byte, 30)): false,
	} {
		assert.Equal(t, want, auth.IsSlackID(id), "IsSlackID(%q)", id)
	}
	for c, want := range map[string]bool{
		"C0RUNS": true, "G0PRIVATE": true, "D0DIRECT": true, "#deploys": true, "deploys": true, "ops.alerts-2": true,
		"": false, "#": false, "#Deploys": false, "deploys now": false, "U0ALICE": false, "#-x": false, "C0RUNS\n": false,
	} {
		assert.Equal(t, want, auth.IsChannel(c), "IsChannel(%q)", c)
	}
}
