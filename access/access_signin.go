package access

import (
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// MaySignIn is the rule for signing in to the web inbox: a person, who
// answers, steers or administers. An agent's token (ask only) cannot: a
// browser session is a person's.
func (a Access) MaySignIn(p auth.Principal) error {
	if p.Local || p.Has(auth.ScopeAnswer) || p.Has(auth.ScopeControl) || p.Has(auth.ScopeAdmin) {
		return nil
	}
	return fault.Errorf(fault.EFORBIDDEN, "%s may not sign in to the web inbox: it needs the answer, control or admin scope (an agent's ask-only token cannot)", p.ID)
}
