package service

import (
	"context"
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// Reassign hands pending question id to the Slack users and user groups
// in to, who replace its assignees (and the people an escalation added):
// the principal in ctx must be allowed to answer it, and so must each of
// them once it is theirs (MayTake). The question records who handed it
// (HandedBy); the event audits it and the edges notify the new assignees.
func (s *Questions) Reassign(ctx context.Context, id string, to []string) (*hitl.Question, error) {
	to, err := handTargets(to)
	if err != nil {
		return nil, err
	}
	p := s.withGroups(ctx, auth.PrincipalFrom(ctx), id)
	groups := s.targetGroups(ctx, id, to)
	now := s.clock.Now()
	var refusal error
	var refusedQ *hitl.Question
	q, err := s.store.UpdateQuestion(ctx, id, s.hookQuestion(func(q *hitl.Question) (*hitl.Event, error) {
		refusal, refusedQ = nil, nil
		if err := s.access.Authorize(p, auth.ActionReassign, q); err != nil {
			refusal, refusedQ = err, q.Clone()
			return nil, err
		}
		if !q.Pending() {
			return nil, hitl.Conflict(q)
		}
		next := q.Clone()
		next.Assignees, next.EscalatedTo = to, nil
		for _, t := range to {
			if err := s.access.MayTake(t, groups[t], next); err != nil {
				refusal, refusedQ = err, q.Clone()
				return nil, err
			}
		}
		from := q.Assignees
		q.Assignees, q.EscalatedTo, q.HandedBy = slices.Clone(to), nil, handler(p)
		ev := withEdge(ctx, hitl.NewQuestionEvent(hitl.EventQuestionReassigned, q, p.ID, now))
		ev.HandedFrom = from
		return ev, nil
	}))
	if refusal != nil && err == refusal {
		return nil, s.guard.refused(ctx, p, auth.ActionReassign, refusedQ, refusal)
	}
	if err != nil {
		return nil, err
	}
	s.notifier.Publish(id)
	s.notifier.Publish(runKey(q.RunID))
	return q.Redacted(), nil
}

// targetGroups looks up, for each user in to, which of the groups config
// and question id mention they are in (the directory, before the
// transaction that decides), so that an approver group counts them.
func (s *Questions) targetGroups(ctx context.Context, id string, to []string) map[string][]string {
	out := map[string][]string{}
	dir := s.dir.get()
	if dir == nil {
		return out
	}
	q, err := s.store.Question(ctx, id)
	if err != nil {
		return out
	}
	for _, g := range s.access.Groups(q) {
		members, err := dir.GroupMembers(ctx, g)
		if err != nil {
			continue
		}
		for _, u := range to {
			if !hitl.IsGroupID(u) && slices.Contains(members, u) {
				out[u] = append(out[u], g)
			}
		}
	}
	return out
}

// handler is how a question names who handed it: the Slack user when
// the principal is one (or speaks for one), else the principal.
func handler(p auth.Principal) string {
	if p.SlackUser != "" {
		return p.SlackUser
	}
	return p.ID
}

// handTargets checks the people a question is handed to: 1 to
// MaxAssignees Slack user (U…, W…) or user group (S…) ids, each once.
func handTargets(to []string) ([]string, error) {
	var out []string
	for _, t := range to {
		t = strings.TrimSpace(t)
		if t = strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(t, "<@"), ">"), "@"); t == "" {
			continue
		}
		if !auth.IsSlackID(t) {
			return nil, fault.Errorf(fault.EINVALID, "%q is not a Slack user (U…) or user group (S…) id", t)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	switch {
	case len(out) == 0:
		return nil, fault.Errorf(fault.EINVALID, "to: name the Slack users or user groups to hand the question to")
	case len(out) > hitl.MaxAssignees:
		return nil, fault.Errorf(fault.EINVALID, "to: at most %d people or groups", hitl.MaxAssignees)
	}
	return out, nil
}

var _ hitl.ReassignService = (*Questions)(nil)
