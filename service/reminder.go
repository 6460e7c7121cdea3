package service

import (
	"context"

	"github.com/hitlbot/hitl"
)

// plan sets q's reminder plan from its type's settings, overridden by
// those of the policy rule that asked it (rule, when not nil).
func (s *Questions) plan(q *hitl.Question, rule *hitl.Rule) {
	p := s.reminders[q.Type]
	if rule != nil {
		p = p.Over(rule.ReminderPolicy)
	}
	q.Reminders = p.PlanFor(q.CreatedAt, q.TimeoutAt)
}

// SweepReminders sends every reminder and escalation due now, each once:
// the plan moves on in the same transaction as the event that the edges
// turn into notifications. It returns how many it sent, and reads only
// the due part of the reminder index: with nothing due it writes nothing.
func (s *Questions) SweepReminders(ctx context.Context) (int, error) {
	now := s.clock.Now()
	return s.sweepDue(ctx, now, s.store.DueReminders, func(q *hitl.Question) (*hitl.Event, error) { return q.Remind(now) }, false)
}
