package hitl

import (
	"time"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/steer"
)

// EventType names an event on the event log and the SSE stream (docs/protocol.md#events:
// the questions API's event types plus the outcomes it leaves implicit).
type EventType string

const (
	EventQuestionAsked     EventType = "question_asked"
	EventQuestionAnswered  EventType = "question_answered"
	EventQuestionTimeout   EventType = "question_timeout"
	EventQuestionCancelled EventType = "question_cancelled"
	EventStatus            EventType = "status"
	// EventQuestionReopened: a sensitive answer was lost to a restart
	// before its asker received it; the question waits again.
	EventQuestionReopened EventType = "question_reopened"
	// EventRefused is the audit of a refused action: who tried what on
	// which question, and the rule that refused it. Only admins read it.
	EventRefused EventType = "refused"
	// EventControl is a loop:control message (ACK or RESULT; docs/protocol.md#steering).
	EventControl EventType = "control"
	// EventLoop is a loop:current message (STATE, ABORT or DONE).
	EventRunState EventType = "loop"
	// EventApprovalAdded: one more approval of a question that needs
	// several (Question.Approvals says how many).
	EventApprovalAdded EventType = "question_approval"
	// EventPolicyDecision: the policy allowed or denied an operation
	// without asking (audit; admins read it), or a rule was learned or
	// revoked.
	EventPolicyDecision EventType = "policy_decision"
	// EventQuestionReminded: a reminder of a pending question is due
	// (Count: how many of its reminders are done); the edges re-notify.
	EventQuestionReminded EventType = "question_reminded"
	// EventQuestionEscalated: nobody answered in time; the plan's people
	// were added as answerers (Question.EscalatedTo).
	EventQuestionEscalated EventType = "question_escalated"
	// EventQuestionReassigned: someone who may answer handed the question
	// to others (Actor), who replace its assignees.
	EventQuestionReassigned EventType = "question_reassigned"
	// EventAlert: an operator alert started or cleared (Alert says which).
	EventAlert EventType = "alert"
)

// Event is one entry of the durable event log. The log is the audit trail
// (who, when, what) and the feed the SSE stream and the Slack bot read from.
// Events never carry a sensitive value: Question and Response are redacted.
type Event struct {
	Seq        uint64    `json:"seq"`
	Type       EventType `json:"type"`
	QuestionID string    `json:"questionId,omitempty"`
	RunID      string    `json:"jobId"`
	At         time.Time `json:"at"`
	Actor      string    `json:"actor,omitempty"`
	// Question is set when a question is asked (or asked again).
	Question *Question `json:"question,omitempty"`
	// Response is the answer, or the default a timeout used (redacted).
	Response *Response `json:"response,omitempty"`
	// Status is the run's status after the event, computed in its
	// transaction (and the status an EventStatus reports).
	Status steer.RunStatus `json:"status,omitempty"`
	// Asker is the principal that asked the question, so that readers who
	// see only their own questions see only their own events.
	Asker string `json:"asker,omitempty"`
	// Action and Reason describe a refusal (EventRefused) or a reopening.
	Action auth.Action `json:"action,omitempty"`
	Reason string      `json:"reason,omitempty"`
	// Refused: an EventControl of a request that was refused (not allowed
	// to steer), its sender's and admins' to read.
	Refused bool `json:"refused,omitempty"`
	// Control is the message of an EventControl, State of an EventLoop.
	Control *steer.ControlMessage `json:"control,omitempty"`
	State   *steer.StateEvent     `json:"state,omitempty"`
	// Operation is the operation of a policy decision.
	Operation *Operation `json:"operation,omitempty"`
	// Count is how many refusals an EventRefused stands for, when more
	// than one: a flood is counted, not recorded one by one.
	Count int `json:"count,omitempty"`
	// HandedFrom are the assignees a reassignment replaced (audit; where
	// the question was shown before).
	HandedFrom []string `json:"handedFrom,omitempty"`
	// Alert is what an EventAlert starts or clears.
	Alert *Alert `json:"alert,omitempty"`
	// Edge is where Actor acted (auth.EdgeFrom): api, web or slack.
	Edge string `json:"edge,omitempty"`
	// Diff is a policy change (Action policy_set), one line per rule.
	Diff []string `json:"diff,omitempty"`
	// Webhooks are the webhook deliveries the event owes (WebhookRoutes):
	// the store writes them to its WebhookOutbox in the event's
	// transaction. Not part of the event's record.
	Webhooks []WebhookDelivery `json:"-"`
}

// Audit reports whether ev is of the admins' audit trail: a refusal or a
// policy decision.
func (ev *Event) Audit() bool { return ev.Type == EventRefused || ev.Type == EventPolicyDecision }

// VisibleTo reports whether p may read ev: the audit trail is for admins;
// a refused control request's messages for its sender and admins (not the
// run's owner); other events for whoever sees every question, and for the
// asker of theirs.
func (ev *Event) VisibleTo(p auth.Principal) bool {
	if ev.Audit() {
		return p.Has(auth.ScopeAdmin)
	}
	if ev.Refused {
		return p.Local || p.ID == ev.Actor || p.Has(auth.ScopeAdmin)
	}
	return p.Local || p.SeesAll() || (ev.Asker != "" && ev.Asker == p.ID)
}

// NewQuestionEvent records what happened to q, once: a question that is
// asked (or asked again) is what changed, so the event carries it; an
// answer, timeout or cancellation carries only the response and reason.
// The store adds the run's status after it (Status).
func NewQuestionEvent(typ EventType, q *Question, actor string, at time.Time) *Event {
	r := q.Redacted()
	ev := &Event{Type: typ, QuestionID: q.ID, RunID: q.RunID, At: at, Actor: actor, Response: r.Response, Asker: q.Asker}
	switch typ {
	case EventQuestionAsked, EventQuestionReopened, EventApprovalAdded, EventQuestionEscalated, EventQuestionReassigned:
		ev.Question = r
		ev.Response = nil
	case EventQuestionCancelled:
		ev.Reason = q.CancelReason
	}
	return ev
}
