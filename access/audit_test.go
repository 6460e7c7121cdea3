package access_test

import (
	"testing"

	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/stretchr/testify/assert"
)

// TestReadAudit: who may read and verify the audit trail (ActionAudit):
// admins, one row per kind of principal.
func TestReadAudit(t *testing.T) {
	rules := access.Access{Admins: []string{"U0ADM"}}
	for _, tc := range []struct {
		name string
		p    auth.Principal
		may  bool
	}{
		{"an admin token", auth.TokenPrincipal("root", []auth.Scope{auth.ScopeAdmin}, ""), true},
		{"a Slack admin", rules.SlackPrincipal("U0ADM", nil), true},
		{"the local person of a tokenless server", auth.LocalPrincipal("alice"), true},
		{"a person who answers", auth.TokenPrincipal("alice", []auth.Scope{auth.ScopeAnswer, auth.ScopeControl}, "U0ALICE"), false},
		{"a Slack user who answers", rules.SlackPrincipal("U0ALICE", nil), false},
		{"an agent", auth.TokenPrincipal("ci", nil, ""), false},
		{"the Slack bot", auth.ObserverPrincipal("slack-bot"), false},
		{"the metrics listener", auth.ScrapePrincipal, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := rules.Authorize(tc.p, auth.ActionAudit, nil)
			assert.Equal(t, tc.may, err == nil, "%v", err)
		})
	}
}
