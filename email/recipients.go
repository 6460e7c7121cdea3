package email

import (
	"context"
	"slices"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// Mailed reports whether an event of q goes by email too: reminders and
// escalations of pending blocking questions and approvals.
func Mailed(ev hitl.EventType, q *hitl.Question) bool {
	return (ev == hitl.EventQuestionReminded || ev == hitl.EventQuestionEscalated) && q.Pending() &&
		(q.Type == hitl.Blocking || q.Type == hitl.Approval)
}

// Recipients are the people (Slack users) a reminder or escalation
// of q is mailed to: for an escalation, the people and groups it added;
// for a reminder, everyone it re-notified (Reminded). A user group is
// mailed as its members, looked up in dir when the mail is made (so the
// group as it is now, not as it was when the question was asked). Each
// person once, in order (members of a group in the order dir gives
// them); never the person who asked. Groups dir could not read, or every
// group when there is no dir (no Slack: nothing says who is in one), are
// returned in unread, for the edge to say their members got no mail.
func Recipients(ctx context.Context, ev hitl.EventType, q *hitl.Question, answerers []string, dir hitl.Directory) (people, unread []string) {
	who := q.Reminded(answerers)
	if ev == hitl.EventQuestionEscalated && q.Reminders != nil {
		who = q.Reminders.EscalateTo
	}
	add := func(id string) {
		if !hitl.IsGroupID(id) && auth.IsSlackID(id) && !slices.Contains(people, id) && !q.AskedBy(id) {
			people = append(people, id)
		}
	}
	for _, id := range who {
		if !hitl.IsGroupID(id) {
			add(id)
			continue
		}
		if !auth.IsSlackID(id) || slices.Contains(unread, id) {
			continue
		}
		var members []string
		var err error = fault.Errorf(fault.EUNAVAILABLE, "no directory of user groups")
		if dir != nil {
			members, err = dir.GroupMembers(ctx, id)
		}
		if err != nil {
			unread = append(unread, id)
			continue
		}
		for _, u := range members {
			add(u)
		}
	}
	return people, unread
}
