package hitl

// MaySignIn is the rule for signing in to the web inbox: a person, who
// answers, steers or administers. An agent's token (ask only) cannot: a
// browser session is a person's.
func (a Access) MaySignIn(p Principal) error {
	if p.Local || p.Has(ScopeAnswer) || p.Has(ScopeControl) || p.Has(ScopeAdmin) {
		return nil
	}
	return Errorf(EFORBIDDEN, "%s may not sign in to the web inbox: it needs the answer, control or admin scope (an agent's ask-only token cannot)", p.ID)
}
