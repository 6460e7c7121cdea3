package access

import (
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// Access is who may do what: the rules every edge gets the same answer
// from. Answerers and Admins are Slack user (U…, W…) or user-group (S…)
// ids; tokens get their rights from their scopes.
type Access struct {
	// Answerers may answer from Slack; empty: anyone who sees the question.
	Answerers []string
	// Admins hold every scope in Slack, and may answer any question.
	Admins []string
	// Controllers may steer runs from Slack (users or user groups); empty:
	// whoever may answer.
	Controllers []string
	// AllowDefaultApprove lets an approval be created with
	// defaultResponse approve (it then approves itself when nobody looks).
	AllowDefaultApprove bool
}

// SlackPrincipal is Slack user user (a member of groups) with the rights
// config gives: answer when answerers are not configured or include them,
// admin when admins include them.
func (a Access) SlackPrincipal(user string, groups []string) auth.Principal {
	p := auth.Principal{ID: "slack:" + user, SlackUser: user, Groups: slices.Clone(groups)}
	if len(a.Answerers) == 0 || p.InAny(a.Answerers) {
		p.Scopes = append(p.Scopes, auth.ScopeAnswer)
	}
	if p.InAny(a.Admins) {
		p.Scopes = append(p.Scopes, auth.ScopeAdmin)
	}
	if (len(a.Controllers) == 0 && p.Has(auth.ScopeAnswer)) || p.InAny(a.Controllers) {
		p.Scopes = append(p.Scopes, auth.ScopeControl)
	}
	return p
}

// Groups lists the user groups config and q (its assignees and
// approvers) mention, so that an edge knows whose membership to look up
// before building a Slack principal.
func (a Access) Groups(q *hitl.Question) []string {
	var out []string
	var assignees, approvers []string
	if q != nil {
		assignees, approvers = q.Assignees, q.Approvers
	}
	var escalated []string
	if q != nil {
		escalated = q.EscalatedTo
	}
	for _, ids := range [][]string{a.Admins, a.Answerers, a.Controllers, assignees, approvers, escalated} {
		for _, id := range ids {
			if hitl.IsGroupID(id) && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// Authorize decides whether p may do act to q (nil for actions not about
// one question). A refusal is an EFORBIDDEN *Error whose message names the
// rule. These are the rules, for every edge:
//
//   - ask: the ask scope.
//   - read: the asker, or a principal that sees every question (answer).
//   - answer: the answer scope (a Slack user q is assigned to has it for
//     q); never the asker (a token speaking for the same Slack user is the
//     same person); when q has assignees, only they (or a group of theirs)
//     or an admin. The local person of a tokenless server answers what was
//     asked from the same machine.
//     People escalation added (q.EscalatedTo) may answer as if assigned,
//     approvers or not.
//   - cancel: the asker, or whoever may answer it.
//   - reassign: whoever may answer it (and then only to people who may
//     answer it once assigned: MayTake).
//   - receive: the asker only.
//   - steer: the control scope. audit: the admin scope.
//   - stats: whoever sees every question (answer). scrape (/metrics): the
//     admin scope, or a request on metrics_listen (ScrapePrincipal).
func (a Access) Authorize(p auth.Principal, act auth.Action, q *hitl.Question) error {
	switch act {
	case auth.ActionAsk:
		if !p.Has(auth.ScopeAsk) {
			return Lacks(p, auth.ScopeAsk)
		}
		return nil
	case auth.ActionSteer:
		if !p.Has(auth.ScopeControl) {
			return Lacks(p, auth.ScopeControl)
		}
		return nil
	case auth.ActionAudit, auth.ActionWebhooks:
		if !p.Has(auth.ScopeAdmin) {
			return Lacks(p, auth.ScopeAdmin)
		}
		return nil
	case auth.ActionStats:
		if p.Local || p.SeesAll() {
			return nil
		}
		return Lacks(p, auth.ScopeAnswer)
	case auth.ActionScrape:
		if p.Has(auth.ScopeAdmin) || slices.Contains(p.Scopes, auth.ScopeScrape) {
			return nil
		}
		return Lacks(p, auth.ScopeAdmin)
	}
	if q == nil {
		return fault.Errorf(fault.EFORBIDDEN, "%s may not %s", p.ID, act)
	}
	switch act {
	case auth.ActionRead:
		if p.Local || p.SeesAll() || p.Same(q.Asker, q.AskerUser) {
			return nil
		}
		return fault.Errorf(fault.EFORBIDDEN, "%s did not ask %s and lacks the answer scope", p.ID, q.ID)
	case auth.ActionAnswer, auth.ActionReassign:
		return a.mayAnswer(p, q)
	case auth.ActionCancel:
		if p.Same(q.Asker, q.AskerUser) && p.Has(auth.ScopeAsk) {
			return nil
		}
		if err := a.mayAnswer(p, q); err != nil {
			if p.Same(q.Asker, q.AskerUser) {
				return Lacks(p, auth.ScopeAsk)
			}
			return err
		}
		return nil
	case auth.ActionReceive:
		if p.ID == q.Asker || (p.Local && auth.IsLocal(q.Asker)) {
			return nil
		}
		return fault.Errorf(fault.EFORBIDDEN, "only %s, which asked %s, may receive its outcome; %s may not", q.Asker, q.ID, p.ID)
	}
	return fault.Errorf(fault.EFORBIDDEN, "%s may not %s %s", p.ID, act, q.ID)
}

func (a Access) mayAnswer(p auth.Principal, q *hitl.Question) error {
	// A Slack user the question is assigned to was named by the asker:
	// that is their right to answer it, answerers or not. Tokens always
	// need the answer scope.
	escalated := p.InAny(q.EscalatedTo)
	assigned := (len(q.Assignees) > 0 && p.InAny(q.Assignees)) || escalated
	if !p.Has(auth.ScopeAnswer) && !(assigned && strings.HasPrefix(p.ID, "slack:")) {
		if strings.HasPrefix(p.ID, "slack:") {
			return fault.Errorf(fault.EFORBIDDEN, "%s is not one of the Slack answerers (slack.answerers)", p.ID)
		}
		return Lacks(p, auth.ScopeAnswer)
	}
	if !p.Local && p.Same(q.Asker, q.AskerUser) {
		return fault.Errorf(fault.EFORBIDDEN, "%s asked %s and may not answer it: a person decides, not the agent that asked", p.ID, q.ID)
	}
	if len(q.Approvers) > 0 && !p.Approves(q.Approvers) && !escalated {
		return fault.Errorf(fault.EFORBIDDEN, "%s is not one of the approvers of %s (%s): the policy rule %q names who decides", p.ID, q.ID, strings.Join(q.Approvers, ", "), q.Rule)
	}
	if len(q.Assignees) > 0 && !p.Has(auth.ScopeAdmin) && !assigned {
		return fault.Errorf(fault.EFORBIDDEN, "%s is assigned to %s; %s is not one of them", q.ID, strings.Join(q.Assignees, ", "), p.ID)
	}
	return nil
}

func Lacks(p auth.Principal, s auth.Scope) *fault.Error {
	return fault.Errorf(fault.EFORBIDDEN, "%s lacks the %s scope", p.ID, s)
}

// WaitsOn reports whether q waits on Slack user user (a member of groups):
// it is listed for them or a group of theirs (Question.Listed: assigned,
// or added by escalation), or it is unassigned and theirs to answer. This is a person's queue (App Home, /hitl pending),
// narrower than what they may answer: an admin's queue is what is assigned
// to them, not everything.
func (a Access) WaitsOn(q *hitl.Question, user string, groups []string) bool {
	p := a.SlackPrincipal(user, groups)
	if p.Same(q.Asker, q.AskerUser) {
		return false
	}
	if p.InAny(q.Listed()) {
		return true
	}
	return q.Unassigned() && p.Has(auth.ScopeAnswer)
}
