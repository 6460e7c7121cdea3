package hitl

import (
	"context"
	"slices"
	"time"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// Reminders and escalation: a question nobody answers re-notifies the
// people who may answer it at set times after it was asked, and at
// EscalateAfter adds more people as its answerers. The settings come from
// config, per question type and per policy rule (a rule's setting wins for
// the questions it asked); the plan is computed once, when the question is
// asked, and travels with it (Question.Reminders): the store indexes its
// next due time, so the sweep reads only what is due.

// Escalated reports whether q was escalated.
func (q *Question) Escalated() bool { return q.Reminders != nil && q.Reminders.EscalatedAt != nil }

// Remind does what is due on q at now, once: escalation when it is due
// (which re-notifies too, so reminders due with it are done by it), else
// one reminder for every reminder due (a service that was down sends one,
// not a burst). It returns the event that records it, or ECONFLICT when
// nothing is due.
func (q *Question) Remind(now time.Time) (*Event, error) {
	p := q.Reminders
	if !q.Pending() {
		return nil, Conflict(q)
	}
	if p == nil || p.Next == nil || p.Next.After(now) {
		return nil, fault.Errorf(fault.ECONFLICT, "question %s has no reminder due", q.ID)
	}
	typ := EventQuestionReminded
	if p.Advance(now) {
		for _, id := range p.EscalateTo {
			if !slices.Contains(q.EscalatedTo, id) {
				q.EscalatedTo = append(q.EscalatedTo, id)
			}
		}
		typ = EventQuestionEscalated
	}
	ev := NewQuestionEvent(typ, q, auth.ActorSystem, now)
	ev.Count = p.Sent
	return ev, nil
}

// ReminderStore is what the reminder sweep needs of a Store beyond
// UpdateQuestions (which records a reminder with its event, atomically).
type ReminderStore interface {
	// DueReminders returns up to limit ids of pending questions whose
	// reminder plan's Next is at or before now, earliest first (limit 0:
	// all). Its cost grows with the number returned, not with the
	// number pending.
	DueReminders(ctx context.Context, now time.Time, limit int) ([]string, error)
}

// ReminderPolicies are the reminder settings of a service: per question type;
// policy rules carry their own (PolicyRule.Reminders).
type ReminderPolicies map[QuestionType]ReminderPolicy
