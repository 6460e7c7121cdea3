package access

import (
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// AuthorizeRun decides whether p may do act to run id, whose record is
// run (nil while nobody started it). A refusal is an EFORBIDDEN *Error
// naming the rule. A run belongs to the principal that started it (its
// Asker: the first question, checkpoint or STATE); these are the rules,
// for every edge:
//
//   - report (ask in the run, publish loop:current for it, checkpoint it):
//     the ask scope, and the run is the principal's own, or nobody's yet
//     (then it becomes theirs), or the principal is an admin. A run id of
//     the reserved form NAME@PRINCIPAL (see RunOwnerOf) can only be
//     started by that principal.
//   - read (the run, its questions, its events, waiting on it): the owner,
//     or a principal that sees every question (answer), control or admin.
//   - threshold: the owner, or control. Setting it on a run nobody
//     started starts it for an ask principal (it becomes theirs).
//   - steer: the control scope.
//
// The same person is one owner: a token with a slack_user and that Slack
// user; every local principal of a tokenless server.
func (a Access) AuthorizeRun(p auth.Principal, act auth.Action, id string, run *hitl.Run) error {
	owned := run != nil && run.Asker != ""
	switch act {
	case auth.ActionReport, auth.ActionAsk:
		if !p.Has(auth.ScopeAsk) {
			return Lacks(p, auth.ScopeAsk)
		}
		if owned {
			if run.OwnedBy(p) || p.Has(auth.ScopeAdmin) {
				return nil
			}
			return fault.Errorf(fault.EFORBIDDEN, "run %s belongs to %s, which started it; %s may not ask, report or checkpoint in it: use a run of your own", id, run.Asker, p.ID)
		}
		return a.mayStart(p, id)
	case auth.ActionRead:
		if !owned || run.OwnedBy(p) || p.Local || p.SeesAll() || p.Has(auth.ScopeControl) {
			return nil
		}
		return fault.Errorf(fault.EFORBIDDEN, "run %s belongs to %s; %s did not start it and lacks the answer and control scopes", id, run.Asker, p.ID)
	case auth.ActionThreshold:
		if p.Has(auth.ScopeControl) {
			return nil
		}
		if !p.Has(auth.ScopeAsk) {
			return Lacks(p, auth.ScopeAsk)
		}
		if !owned {
			return a.mayStart(p, id)
		}
		if run.OwnedBy(p) {
			return nil
		}
		return fault.Errorf(fault.EFORBIDDEN, "run %s belongs to %s; %s did not start it and lacks the control scope", id, run.Asker, p.ID)
	case auth.ActionSteer:
		return a.Authorize(p, auth.ActionSteer, nil)
	}
	return fault.Errorf(fault.EFORBIDDEN, "%s may not %s run %s", p.ID, act, id)
}

// mayStart reports whether p may start run id: any id but one reserved
// for another principal.
func (a Access) mayStart(p auth.Principal, id string) error {
	if owner, ok := hitl.RunOwnerOf(id); ok && !p.Is(owner) {
		return fault.Errorf(fault.EFORBIDDEN, "run id %s is reserved for %s (the part after '@'); %s may not start it: use %s", id, owner, p.ID, hitl.DefaultRunID(strings.TrimSuffix(id, "@"+owner), p))
	}
	return nil
}
