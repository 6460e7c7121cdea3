package access_test

import (
	"testing"

	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
)

// TestOIDCPrincipal: what a person signed in through OpenID Connect may
// do comes from config, by name, domain or group; one row per rule.
func TestOIDCPrincipal(t *testing.T) {
	roles := access.OIDCRoles{
		AllowedDomains: []string{"example.com", "corp.example"},
		Answer:         []string{"@example.com", "group:oncall"},
		Control:        []string{"bob@example.com"},
		Admin:          []string{"group:hitl-admins"},
	}
	slackRoles := roles
	slackRoles.SlackTeam = "T0HITL"
	claims := func(email string, groups ...string) access.OIDCClaims {
		return access.OIDCClaims{Subject: "s", Email: email, EmailVerified: true, Groups: groups}
	}
	for _, tc := range []struct {
		name   string
		roles  access.OIDCRoles
		c      access.OIDCClaims
		id     string
		scopes []auth.Scope // nil: refused
	}{
		{"a person of an answering domain answers", roles, claims("alice@example.com"), "oidc:alice@example.com", []auth.Scope{auth.ScopeAnswer}},
		{"a named person gets their role too", roles, claims("Bob@Example.com"), "oidc:bob@example.com", []auth.Scope{auth.ScopeAnswer, auth.ScopeControl}},
		{"a group grants its role", roles, claims("carol@corp.example", "oncall"), "oidc:carol@corp.example", []auth.Scope{auth.ScopeAnswer}},
		{"the admin group administers", roles, claims("dave@corp.example", "hitl-admins"), "oidc:dave@corp.example", []auth.Scope{auth.ScopeAdmin}},
		{"a valid token alone grants nothing", roles, claims("erin@corp.example"), "", nil},
		{"a domain not allowed is refused, whatever its groups", roles, claims("mallory@evil.com", "hitl-admins"), "", nil},
		{"a look-alike domain is another domain", roles, claims("mallory@evil-example.com", "oncall"), "", nil},
		{"a subdomain is another domain", roles, claims("mallory@example.com.evil.org", "oncall"), "", nil},
		{"a group's name matches whole", roles, claims("frank@corp.example", "oncall-2", "HITL-ADMINS"), "", nil},
		{"an unverified e-mail is refused", roles, access.OIDCClaims{Email: "alice@example.com", Groups: []string{"hitl-admins"}}, "", nil},
		{"no e-mail is refused", roles, access.OIDCClaims{EmailVerified: true, Groups: []string{"hitl-admins"}}, "", nil},
		{"a display-name address is refused", roles, claims("Alice <alice@example.com>"), "", nil},
		{"no allowed_domains: roles alone decide", access.OIDCRoles{Answer: []string{"@other.org"}}, claims("gina@other.org"), "oidc:gina@other.org", []auth.Scope{auth.ScopeAnswer}},
		{"a Slack sign-in is the Slack user, one person with their clicks", slackRoles,
			access.OIDCClaims{Email: "alice@example.com", EmailVerified: true, SlackUser: "U0ALICE", SlackTeam: "T0HITL"}, "slack:U0ALICE", []auth.Scope{auth.ScopeAnswer}},
		{"a Slack sign-in from another workspace is refused", slackRoles,
			access.OIDCClaims{Email: "alice@example.com", EmailVerified: true, SlackUser: "U0ALICE", SlackTeam: "T0OTHER"}, "", nil},
		{"a Slack sign-in when no workspace is configured is refused", roles,
			access.OIDCClaims{Email: "alice@example.com", EmailVerified: true, SlackUser: "U0ALICE", SlackTeam: "T0HITL"}, "", nil},
		{"an e-mail a Slack profile has is that Slack user", roles,
			access.OIDCClaims{Email: "alice@example.com", EmailVerified: true, SlackUser: "U0ALICE"}, "slack:U0ALICE", []auth.Scope{auth.ScopeAnswer}},
		{"a Slack user does not widen the roles", roles,
			access.OIDCClaims{Email: "erin@corp.example", EmailVerified: true, SlackUser: "U0ERIN"}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.roles.OIDCPrincipal(tc.c)
			if tc.scopes == nil {
				assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "refused: %v", err)
				return
			}
			if assert.NoError(t, err) {
				assert.Equal(t, tc.id, p.ID)
				assert.Equal(t, tc.scopes, p.Scopes)
				assert.Equal(t, tc.c.SlackUser, p.SlackUser)
				assert.NoError(t, access.Access{}.MaySignIn(p), "whoever the roles grant may sign in")
			}
		})
	}
}
