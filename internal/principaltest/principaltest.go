// Package principaltest builds principals for tests from the ids the audit
// log records, so a test reads as.("api:ci") rather than a struct.
package principaltest

import (
	"context"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
)

// Principal returns the principal an id names: "api:NAME" is a token with
// the ask and answer scopes, "slack:U…" a Slack user who may answer,
// "local" or "local:USER" the local person, "admin:NAME" a token with the
// admin scope, anything else a principal of that id with ask and answer.
func Principal(id string) hitl.Principal {
	kind, name, _ := strings.Cut(id, ":")
	switch kind {
	case "api":
		return hitl.TokenPrincipal(name, []hitl.Scope{hitl.ScopeAsk, hitl.ScopeAnswer}, "")
	case "admin":
		return hitl.TokenPrincipal(name, []hitl.Scope{hitl.ScopeAdmin}, "")
	case "slack":
		return access.Access{}.SlackPrincipal(name, nil)
	case "local":
		return hitl.LocalPrincipal(name)
	}
	return hitl.Principal{ID: id, Scopes: []hitl.Scope{hitl.ScopeAsk, hitl.ScopeAnswer}}
}

// As returns ctx acting as the principal id names (see Principal).
func As(ctx context.Context, id string) context.Context {
	return hitl.WithPrincipal(ctx, Principal(id))
}
