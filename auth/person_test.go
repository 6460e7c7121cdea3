package auth_test

import (
	"testing"

	"github.com/hitlbot/hitl/auth"
	"github.com/stretchr/testify/assert"
)

// TestSamePerson: one person across edges — a Slack click, a token
// speaking for that Slack user, a web session signed in with Sign in with
// Slack or under an e-mail the Slack profile has — counts once; different
// people never merge. One row per way in.
func TestSamePerson(t *testing.T) {
	click := auth.Principal{ID: "slack:U0ALICE", SlackUser: "U0ALICE"}
	for _, tc := range []struct {
		name string
		a, b auth.Principal
		same bool
	}{
		{"a token with slack_user is its Slack user", click, auth.TokenPrincipal("alice-laptop", []auth.Scope{auth.ScopeAnswer}, "U0ALICE"), true},
		{"Sign in with Slack is the Slack user", click, auth.Principal{ID: "slack:U0ALICE", SlackUser: "U0ALICE", Scopes: []auth.Scope{auth.ScopeAnswer}}, true},
		{"an OIDC e-mail matched to a Slack profile is that Slack user", auth.Principal{ID: "slack:U0ALICE", SlackUser: "U0ALICE"}, auth.TokenPrincipal("ci", nil, "U0ALICE"), true},
		{"two tokens of one Slack user are one person", auth.TokenPrincipal("a", nil, "U0ALICE"), auth.TokenPrincipal("b", nil, "U0ALICE"), true},
		{"two Slack users are two people", click, auth.Principal{ID: "slack:U0BOB", SlackUser: "U0BOB"}, false},
		{"a token without slack_user is its own person", click, auth.TokenPrincipal("alice", nil, ""), false},
		{"an OIDC person without a Slack user is their e-mail", click, auth.Principal{ID: "oidc:alice@example.com"}, false},
		{"two OIDC e-mails are two people", auth.Principal{ID: "oidc:alice@example.com"}, auth.Principal{ID: "oidc:bob@example.com"}, false},
		{"one OIDC e-mail is one person", auth.Principal{ID: "oidc:alice@example.com"}, auth.Principal{ID: "oidc:alice@example.com"}, true},
		{"the local person is one however named", auth.LocalPrincipal("alice"), auth.LocalPrincipal("bob"), true},
		{"a token named like a Slack id is not that user", click, auth.TokenPrincipal("U0ALICE", nil, ""), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.same, auth.SamePerson(tc.a, tc.b))
			assert.Equal(t, tc.same, auth.SamePerson(tc.b, tc.a), "both ways")
		})
	}
}
