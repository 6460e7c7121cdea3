// Package principaltest builds principals for tests from the ids the audit
// log records, so a test reads as.("api:ci") rather than a struct.
package principaltest

import (
	"context"
	"strings"

	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
)

// Principal returns the principal an id names: "api:NAME" is a token with
// the ask and answer scopes, "slack:U…" a Slack user who may answer,
// "local" or "local:USER" the local person, "admin:NAME" a token with the
// admin scope, anything else a principal of that id with ask and answer.
func Principal(id string) auth.Principal {
	kind, name, _ := strings.Cut(id, ":")
	switch kind {
	case "api":
		return auth.TokenPrincipal(name, []auth.Scope{auth.ScopeAsk, auth.ScopeAnswer}, "")
	case "admin":
		return auth.TokenPrincipal(name, []auth.Scope{auth.ScopeAdmin}, "")
	case "slack":
		return access.Access{}.SlackPrincipal(name, nil)
	case "local":
		return auth.LocalPrincipal(name)
	}
	return auth.Principal{ID: id, Scopes: []auth.Scope{auth.ScopeAsk, auth.ScopeAnswer}}
}

// As returns ctx acting as the principal id names (see Principal).
func As(ctx context.Context, id string) context.Context {
	return auth.WithPrincipal(ctx, Principal(id))
}
