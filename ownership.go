package hitl

import "strings"

// ActionThreshold sets a run's own interaction threshold.
const ActionThreshold Action = "threshold"

// ActionReport is what an agent does in its own run: ask in it, publish
// loop:current (STATE, ABORT, DONE) for it, checkpoint it.
const ActionReport Action = "report"

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
func (a Access) AuthorizeRun(p Principal, act Action, id string, run *Run) error {
	owned := run != nil && run.Asker != ""
	switch act {
	case ActionReport, ActionAsk:
		if !p.Has(ScopeAsk) {
			return Lacks(p, ScopeAsk)
		}
		if owned {
			if p.owns(run) || p.Has(ScopeAdmin) {
				return nil
			}
			return Errorf(EFORBIDDEN, "run %s belongs to %s, which started it; %s may not ask, report or checkpoint in it: use a run of your own", id, run.Asker, p.ID)
		}
		return a.mayStart(p, id)
	case ActionRead:
		if !owned || p.owns(run) || p.Local || p.SeesAll() || p.Has(ScopeControl) {
			return nil
		}
		return Errorf(EFORBIDDEN, "run %s belongs to %s; %s did not start it and lacks the answer and control scopes", id, run.Asker, p.ID)
	case ActionThreshold:
		if p.Has(ScopeControl) {
			return nil
		}
		if !p.Has(ScopeAsk) {
			return Lacks(p, ScopeAsk)
		}
		if !owned {
			return a.mayStart(p, id)
		}
		if p.owns(run) {
			return nil
		}
		return Errorf(EFORBIDDEN, "run %s belongs to %s; %s did not start it and lacks the control scope", id, run.Asker, p.ID)
	case ActionSteer:
		return a.Authorize(p, ActionSteer, nil)
	}
	return Errorf(EFORBIDDEN, "%s may not %s run %s", p.ID, act, id)
}

// mayStart reports whether p may start run id: any id but one reserved
// for another principal.
func (a Access) mayStart(p Principal, id string) error {
	if owner, ok := RunOwnerOf(id); ok && !p.is(owner) {
		return Errorf(EFORBIDDEN, "run id %s is reserved for %s (the part after '@'); %s may not start it: use %s", id, owner, p.ID, DefaultRunID(strings.TrimSuffix(id, "@"+owner), p))
	}
	return nil
}

// RunOwnerOf reads the reserved form of a run id, NAME@PRINCIPAL, where
// PRINCIPAL is a principal id (api:TOKEN, slack:USER, local or
// local:USER): only that principal (or the same person) may start it.
// Default run names take this form, so nobody can take another's first.
func RunOwnerOf(id string) (owner string, ok bool) {
	for i := strings.IndexByte(id, '@'); i >= 0; {
		owner = id[i+1:]
		if IsLocal(owner) || strings.HasPrefix(owner, "api:") || strings.HasPrefix(owner, "slack:") {
			return owner, true // the first such '@': token names may hold '@'
		}
		j := strings.IndexByte(owner, '@')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return "", false
}

// DefaultRunID is principal p's own run called name: name@ID, a run id
// only p can start (RunOwnerOf).
func DefaultRunID(name string, p Principal) string { return name + "@" + p.ID }

// KeyOf is the key a question's idempotency key is held under in its
// run: the asker's own, so that one asker's key never finds another's
// question, even where runs are shared (admins, unowned runs). The local
// principals of a tokenless server are one asker.
func KeyOf(asker, key string) string { return PersonOf(asker) + "\x00" + key }

// ControlKeyOf is the key a control request id sent by principal is held
// under (seed 000's dedup cache): the principal's own, so that another
// principal's request with the same id is a new request, never answered
// with the first one's RESULT (nor refused with its refusal). The local
// principals of a tokenless server are one principal.
func ControlKeyOf(principal, requestID string) ControlKey {
	return ControlKey{Principal: PersonOf(principal), RequestID: requestID}
}

// owns reports whether p is the same person as the principal that
// started run.
func (p Principal) owns(run *Run) bool {
	return p.is(run.Asker) || (p.SlackUser != "" && p.SlackUser == run.AskerUser)
}

// is reports whether p is the principal id names: the same id, the same
// Slack user, or both local principals of a tokenless server.
func (p Principal) is(id string) bool {
	if p.ID == id || (p.Local && IsLocal(id)) {
		return true
	}
	u, ok := strings.CutPrefix(id, "slack:")
	return ok && p.SlackUser != "" && p.SlackUser == u
}
