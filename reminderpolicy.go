package hitl

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

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
	case len(p.EscalateTo) > MaxEscalateTo:
		return fault.Errorf(fault.EINVALID, "%s: escalate_to: at most %d", at, MaxEscalateTo)
	}
	for _, id := range p.EscalateTo {
		if !auth.IsSlackID(id) {
			return fault.Errorf(fault.EINVALID, "%s: escalate_to: %q is not a Slack user (U…) or user group (S…) id", at, id)
		}
	}
	if c := p.EscalationChannel; c != "" && !auth.IsChannel(c) {
		return fault.Errorf(fault.EINVALID, "%s: escalation_channel: %q is not a Slack channel id or name", at, c)
	}
	return nil
}

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

// MaxEscalateTo bounds the people an escalation adds, as a question's
// assignees are bounded (hitl.MaxAssignees; TestOperationLimits holds them
// equal).
const MaxEscalateTo = 20

// MaxReminders bounds one question's reminders.
const MaxReminders = 10

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

// next sets Next to the earliest reminder or escalation left.
// Advance does what is due at now, once: every reminder due counts as
// sent, and the escalation, when due, is done (it reports true). Next
// becomes the plan's next due time.
func (p *ReminderPlan) Advance(now time.Time) (escalated bool) {
	for p.Sent < len(p.At) && !p.At[p.Sent].After(now) {
		p.Sent++
	}
	if p.EscalateAt != nil && p.EscalatedAt == nil && !p.EscalateAt.After(now) {
		at := now
		p.EscalatedAt = &at
		escalated = true
	}
	p.next()
	return escalated
}

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
