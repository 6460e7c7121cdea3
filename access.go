package hitl

import (
	"slices"
	"strings"
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
func (a Access) SlackPrincipal(user string, groups []string) Principal {
	p := Principal{ID: "slack:" + user, SlackUser: user, Groups: slices.Clone(groups)}
	if len(a.Answerers) == 0 || p.InAny(a.Answerers) {
		p.Scopes = append(p.Scopes, ScopeAnswer)
	}
	if p.InAny(a.Admins) {
		p.Scopes = append(p.Scopes, ScopeAdmin)
	}
	if (len(a.Controllers) == 0 && p.Has(ScopeAnswer)) || p.InAny(a.Controllers) {
		p.Scopes = append(p.Scopes, ScopeControl)
	}
	return p
}

// Groups lists the user groups config and q (its assignees and
// approvers) mention, so that an edge knows whose membership to look up
// before building a Slack principal.
func (a Access) Groups(q *Question) []string {
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
			if IsGroupID(id) && !slices.Contains(out, id) {
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
func (a Access) Authorize(p Principal, act Action, q *Question) error {
	switch act {
	case ActionAsk:
		if !p.Has(ScopeAsk) {
			return Lacks(p, ScopeAsk)
		}
		return nil
	case ActionSteer:
		if !p.Has(ScopeControl) {
			return Lacks(p, ScopeControl)
		}
		return nil
	case ActionAudit, ActionWebhooks:
		if !p.Has(ScopeAdmin) {
			return Lacks(p, ScopeAdmin)
		}
		return nil
	case ActionStats:
		if p.Local || p.SeesAll() {
			return nil
		}
		return Lacks(p, ScopeAnswer)
	case ActionScrape:
		if p.Has(ScopeAdmin) || slices.Contains(p.Scopes, ScopeScrape) {
			return nil
		}
		return Lacks(p, ScopeAdmin)
	}
	if q == nil {
		return Errorf(EFORBIDDEN, "%s may not %s", p.ID, act)
	}
	switch act {
	case ActionRead:
		if p.Local || p.SeesAll() || p.Asked(q) {
			return nil
		}
		return Errorf(EFORBIDDEN, "%s did not ask %s and lacks the answer scope", p.ID, q.ID)
	case ActionAnswer, ActionReassign:
		return a.mayAnswer(p, q)
	case ActionCancel:
		if p.Asked(q) && p.Has(ScopeAsk) {
			return nil
		}
		if err := a.mayAnswer(p, q); err != nil {
			if p.Asked(q) {
				return Lacks(p, ScopeAsk)
			}
			return err
		}
		return nil
	case ActionReceive:
		if p.ID == q.Asker || (p.Local && IsLocal(q.Asker)) {
			return nil
		}
		return Errorf(EFORBIDDEN, "only %s, which asked %s, may receive its outcome; %s may not", q.Asker, q.ID, p.ID)
	}
	return Errorf(EFORBIDDEN, "%s may not %s %s", p.ID, act, q.ID)
}

func (a Access) mayAnswer(p Principal, q *Question) error {
	// A Slack user the question is assigned to was named by the asker:
	// that is their right to answer it, answerers or not. Tokens always
	// need the answer scope.
	escalated := p.InAny(q.EscalatedTo)
	assigned := (len(q.Assignees) > 0 && p.InAny(q.Assignees)) || escalated
	if !p.Has(ScopeAnswer) && !(assigned && strings.HasPrefix(p.ID, "slack:")) {
		if strings.HasPrefix(p.ID, "slack:") {
			return Errorf(EFORBIDDEN, "%s is not one of the Slack answerers (slack.answerers)", p.ID)
		}
		return Lacks(p, ScopeAnswer)
	}
	if !p.Local && p.Asked(q) {
		return Errorf(EFORBIDDEN, "%s asked %s and may not answer it: a person decides, not the agent that asked", p.ID, q.ID)
	}
	if len(q.Approvers) > 0 && !p.Approves(q.Approvers) && !escalated {
		return Errorf(EFORBIDDEN, "%s is not one of the approvers of %s (%s): the policy rule %q names who decides", p.ID, q.ID, strings.Join(q.Approvers, ", "), q.Rule)
	}
	if len(q.Assignees) > 0 && !p.Has(ScopeAdmin) && !assigned {
		return Errorf(EFORBIDDEN, "%s is assigned to %s; %s is not one of them", q.ID, strings.Join(q.Assignees, ", "), p.ID)
	}
	return nil
}

func Lacks(p Principal, s Scope) *Error {
	return Errorf(EFORBIDDEN, "%s lacks the %s scope", p.ID, s)
}

// WaitsOn reports whether q waits on Slack user user (a member of groups):
// it is listed for them or a group of theirs (Question.Listed: assigned,
// or added by escalation), or it is unassigned and theirs to answer. This is a person's queue (App Home, /hitl pending),
// narrower than what they may answer: an admin's queue is what is assigned
// to them, not everything.
func (a Access) WaitsOn(q *Question, user string, groups []string) bool {
	p := a.SlackPrincipal(user, groups)
	if p.Asked(q) {
		return false
	}
	if p.InAny(q.Listed()) {
		return true
	}
	return q.Unassigned() && p.Has(ScopeAnswer)
}
