package hitl

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
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

// ReminderPolicy is when pending questions re-notify and escalate.
type ReminderPolicy struct {
	// Every lists the reminders, as durations after the question was
	// asked: one reminder at each, none after the last.
	Every []Duration `json:"reminders,omitempty"`
	// EscalateAfter (after the question was asked) adds EscalateTo (Slack
	// users or user groups) as answerers and posts to EscalationChannel.
	EscalateAfter     Duration `json:"escalateAfter,omitempty"`
	EscalateTo        []string `json:"escalateTo,omitempty"`
	EscalationChannel string   `json:"escalationChannel,omitempty"`
}

// Duration is a time.Duration written as "10m" in JSON.
type Duration time.Duration

// MarshalJSON writes d as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a Go duration string ("10m") or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		f, ferr := strconv.ParseFloat(string(b), 64)
		if ferr != nil {
			return fault.Errorf(fault.EINVALID, "a duration is a string like \"10m\" or a number of seconds")
		}
		*d = Duration(f * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fault.Errorf(fault.EINVALID, "%q is not a duration (like 10m or 1h30m)", s)
	}
	*d = Duration(v)
	return nil
}

// IsZero reports whether p asks for nothing.
func (p ReminderPolicy) IsZero() bool {
	return len(p.Every) == 0 && p.EscalateAfter == 0 && len(p.EscalateTo) == 0 && p.EscalationChannel == ""
}

// Validate checks a reminder policy; at names where it was written.
func (p ReminderPolicy) Validate(at string) error {
	for i, d := range p.Every {
		switch {
		case d <= 0:
			return fault.Errorf(fault.EINVALID, "%s: reminders: %s is not positive", at, time.Duration(d))
		case i > 0 && d <= p.Every[i-1]:
			return fault.Errorf(fault.EINVALID, "%s: reminders: %s does not come after %s (list them in order)", at, time.Duration(d), time.Duration(p.Every[i-1]))
		}
	}
	if len(p.Every) > MaxReminders {
		return fault.Errorf(fault.EINVALID, "%s: reminders: at most %d", at, MaxReminders)
	}
	switch {
	case p.EscalateAfter < 0:
		return fault.Errorf(fault.EINVALID, "%s: escalate_after: %s is negative", at, time.Duration(p.EscalateAfter))
	case p.EscalateAfter > 0 && len(p.EscalateTo) == 0 && p.EscalationChannel == "":
		return fault.Errorf(fault.EINVALID, "%s: escalate_after needs escalate_to or escalation_channel", at)
	case p.EscalateAfter == 0 && (len(p.EscalateTo) > 0 || p.EscalationChannel != ""):
		return fault.Errorf(fault.EINVALID, "%s: escalate_to and escalation_channel need escalate_after", at)
	case len(p.EscalateTo) > MaxAssignees:
		return fault.Errorf(fault.EINVALID, "%s: escalate_to: at most %d", at, MaxAssignees)
	}
	for _, id := range p.EscalateTo {
		if !slackIDPattern.MatchString(id) {
			return fault.Errorf(fault.EINVALID, "%s: escalate_to: %q is not a Slack user (U…) or user group (S…) id", at, id)
		}
	}
	if c := p.EscalationChannel; c != "" && !channelPattern.MatchString(c) {
		return fault.Errorf(fault.EINVALID, "%s: escalation_channel: %q is not a Slack channel id or name", at, c)
	}
	return nil
}

// MaxReminders bounds one question's reminders.
const MaxReminders = 10

// Over returns p with every key rule sets replacing p's: a policy rule's
// settings win over its question type's.
func (p ReminderPolicy) Over(rule ReminderPolicy) ReminderPolicy {
	if len(rule.Every) > 0 {
		p.Every = rule.Every
	}
	if rule.EscalateAfter > 0 {
		p.EscalateAfter, p.EscalateTo, p.EscalationChannel = rule.EscalateAfter, rule.EscalateTo, rule.EscalationChannel
	}
	return p
}

// ReminderPlan is one question's reminders and escalation, as absolute
// times fixed when it was asked, and how far it went.
type ReminderPlan struct {
	// At are the reminders' due times; Sent how many of them are done
	// (sent, or passed over while the service was down).
	At   []time.Time `json:"at,omitempty"`
	Sent int         `json:"sent,omitempty"`
	// EscalateAt is when EscalateTo are added as answerers and
	// EscalationChannel told; EscalatedAt when that happened.
	EscalateAt        *time.Time `json:"escalateAt,omitempty"`
	EscalateTo        []string   `json:"escalateTo,omitempty"`
	EscalationChannel string     `json:"escalationChannel,omitempty"`
	EscalatedAt       *time.Time `json:"escalatedAt,omitempty"`
	// Next is when the next reminder or the escalation is due (nil: none
	// left). The store indexes it while the question is pending.
	Next *time.Time `json:"next,omitempty"`
}

// PlanFor returns the plan p gives a question asked at created that times
// out at timeout (nil: never): nothing due at or after the timeout is
// planned. Nil when nothing is.
func (p ReminderPolicy) PlanFor(created time.Time, timeout *time.Time) *ReminderPlan {
	before := func(t time.Time) bool { return timeout == nil || t.Before(*timeout) }
	plan := &ReminderPlan{}
	for _, d := range p.Every {
		if at := created.Add(time.Duration(d)); before(at) {
			plan.At = append(plan.At, at)
		}
	}
	if at := created.Add(time.Duration(p.EscalateAfter)); p.EscalateAfter > 0 && before(at) {
		plan.EscalateAt = &at
		plan.EscalateTo, plan.EscalationChannel = slices.Clone(p.EscalateTo), p.EscalationChannel
	}
	if len(plan.At) == 0 && plan.EscalateAt == nil {
		return nil
	}
	plan.next()
	return plan
}

// next sets Next to the earliest reminder or escalation left.
func (p *ReminderPlan) next() {
	var n *time.Time
	if p.Sent < len(p.At) {
		t := p.At[p.Sent]
		n = &t
	}
	if p.EscalateAt != nil && p.EscalatedAt == nil && (n == nil || p.EscalateAt.Before(*n)) {
		t := *p.EscalateAt
		n = &t
	}
	p.Next = n
}

func (p *ReminderPlan) Clone() *ReminderPlan {
	if p == nil {
		return nil
	}
	c := *p
	c.At = slices.Clone(p.At)
	c.EscalateTo = slices.Clone(p.EscalateTo)
	for _, t := range []**time.Time{&c.EscalateAt, &c.EscalatedAt, &c.Next} {
		if *t != nil {
			v := **t
			*t = &v
		}
	}
	return &c
}

// Escalated reports whether q was escalated.
func (q *Question) Escalated() bool { return q.Reminders != nil && q.Reminders.EscalatedAt != nil }

// remind does what is due on q at now, once: escalation when it is due
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
	for p.Sent < len(p.At) && !p.At[p.Sent].After(now) {
		p.Sent++
	}
	typ := EventQuestionReminded
	if p.EscalateAt != nil && p.EscalatedAt == nil && !p.EscalateAt.After(now) {
		at := now
		p.EscalatedAt = &at
		for _, id := range p.EscalateTo {
			if !slices.Contains(q.EscalatedTo, id) {
				q.EscalatedTo = append(q.EscalatedTo, id)
			}
		}
		typ = EventQuestionEscalated
	}
	p.next()
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

// Reminders are the reminder settings of a service: per question type;
// policy rules carry their own (PolicyRule.Reminders).
type Reminders map[QuestionType]ReminderPolicy
