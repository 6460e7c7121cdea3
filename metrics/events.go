package metrics

import (
	"context"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/steer"
)

// count updates the metrics an event of the log changes.
func (m *Metrics) count(ctx context.Context, ev *hitl.Event) error {
	switch ev.Type {
	case hitl.EventQuestionAsked:
		if q := ev.Question; q != nil {
			m.created.WithLabelValues(string(q.Type)).Inc()
			m.pending.WithLabelValues(string(q.Type)).Inc()
			if q.Operation != nil {
				m.policy.WithLabelValues(string(hitl.EffectAsk)).Inc()
			}
		}
	case hitl.EventQuestionReopened:
		if q := ev.Question; q != nil {
			m.pending.WithLabelValues(string(q.Type)).Inc()
		}
	case hitl.EventQuestionAnswered, hitl.EventQuestionTimeout, hitl.EventQuestionCancelled:
		return m.settle(ctx, ev)
	case hitl.EventControl:
		if c := ev.Control; c != nil && c.Type == steer.MessageResult {
			m.control.WithLabelValues(string(c.Command), controlResult(c)).Inc()
		}
	case hitl.EventPolicyDecision:
		switch e := hitl.Effect(ev.Action); e {
		case hitl.EffectAllow, hitl.EffectDeny:
			m.policy.WithLabelValues(string(e)).Inc()
		}
	default:
		switch {
		case observe.CountsAsReminder(ev.Type):
			m.reminders.Inc()
		case observe.CountsAsEscalation(ev.Type):
			m.escalations.Inc()
		}
	}
	return nil
}

// settle counts a settled question, read from the store for its type
// and times (the event carries only the outcome).
func (m *Metrics) settle(ctx context.Context, ev *hitl.Event) error {
	q, err := m.cfg.Source.Questions.Question(ctx, ev.QuestionID)
	switch fault.Code(err) {
	case "":
	case fault.ENOTFOUND:
		return nil // pruned since: its type is gone with it
	default:
		return err
	}
	typ := string(q.Type)
	m.pending.WithLabelValues(typ).Dec()
	outcome := map[hitl.EventType]hitl.Status{hitl.EventQuestionAnswered: hitl.StatusAnswered,
		hitl.EventQuestionTimeout: hitl.StatusTimeout, hitl.EventQuestionCancelled: hitl.StatusCancelled}[ev.Type]
	m.settled.WithLabelValues(typ, string(outcome)).Inc()
	if ev.Type == hitl.EventQuestionAnswered {
		m.answerSeconds.WithLabelValues(typ).Observe(ev.At.Sub(q.CreatedAt).Seconds())
	}
	return nil
}

// controlResult is a RESULT's result label: success, or the failure's
// code (not_found, invalid_state, duplicate, bad_request, forbidden).
func controlResult(c *steer.ControlMessage) string {
	switch {
	case c.Payload.Status == steer.ResultSuccess:
		return steer.ResultSuccess
	case c.Payload.Code != "":
		return c.Payload.Code
	}
	return steer.ResultFailure
}
