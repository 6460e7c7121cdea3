package access

import (
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
)

// A person's inbox: the questions that wait on them, as every edge that
// shows one reads it (the web inbox; Slack's App Home reads Slack users'
// with WaitsOn).

// InboxFilter is the list that holds p's queue, for QuestionPage: the
// local person of a tokenless server sees every pending question (all
// were asked from the machine); a person with a Slack user (a Slack
// sign-in, a token's slack_user) the questions listed for them or their
// groups (Question.Listed: assigned, or added by escalation), plus the unassigned ones when they answer, never their own; a
// token without one the unassigned pending questions when it answers.
// assignedOnly keeps the questions assigned to them. The list may hold
// questions InInbox leaves out (the store filters by index): check each.
func (a Access) InboxFilter(p auth.Principal, assignedOnly bool) (f hitl.QuestionFilter, empty bool) {
	switch {
	case p.Local && !assignedOnly:
		return hitl.QuestionFilter{Status: hitl.StatusPending}, false
	case p.SlackUser != "":
		return hitl.QuestionFilter{Queue: append([]string{p.SlackUser}, p.Groups...), NotAskedBy: p.SlackUser,
			Unassigned: !assignedOnly && p.Has(auth.ScopeAnswer)}, false
	case !assignedOnly && p.Has(auth.ScopeAnswer):
		return hitl.QuestionFilter{Unassigned: true, Status: hitl.StatusPending}, false
	}
	// Nothing can be assigned to a principal without a Slack user, and
	// one that does not answer has no queue.
	return hitl.QuestionFilter{}, true
}

// InInbox reports whether q waits on p: it is pending, in p's queue (see
// InboxFilter), and p may answer it (approvers, assignees, never the
// asker). Like WaitsOn, a question listed for p (Question.Listed) is in
// it whether or not p answers others.
func (a Access) InInbox(p auth.Principal, q *hitl.Question, assignedOnly bool) bool {
	if !q.Pending() || a.Authorize(p, auth.ActionAnswer, q) != nil {
		return false
	}
	switch {
	case p.InAny(q.Listed()):
		return true
	case assignedOnly:
		return false
	case p.Local:
		return true
	}
	return q.Unassigned() && p.Has(auth.ScopeAnswer)
}
