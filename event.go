package hitl

import "time"

// EventType names an event on the event log and the SSE stream (seed 001's
// event types plus the outcomes it leaves implicit).
type EventType string

const (
	EventQuestionAsked     EventType = "question_asked"
	EventQuestionAnswered  EventType = "question_answered"
	EventQuestionTimeout   EventType = "question_timeout"
	EventQuestionCancelled EventType = "question_cancelled"
	EventStatus            EventType = "status"
)

// Event is one entry of the durable event log. The log is the audit trail
// (who, when, what) and the feed the SSE stream and the Slack bot read from.
// Events never carry a sensitive value: Question and Response are redacted.
type Event struct {
	Seq        uint64    `json:"seq"`
	Type       EventType `json:"type"`
	QuestionID string    `json:"questionId,omitempty"`
	JobID      string    `json:"jobId"`
	At         time.Time `json:"at"`
	Actor      string    `json:"actor,omitempty"`
	Question   *Question `json:"question,omitempty"`
	Response   *Response `json:"response,omitempty"`
	Status     RunPhase  `json:"status,omitempty"` // for EventStatus
}

func newQuestionEvent(typ EventType, q *Question, actor string, at time.Time) *Event {
	r := q.Redacted()
	return &Event{Type: typ, QuestionID: q.ID, JobID: q.JobID, At: at, Actor: actor, Question: r, Response: r.Response}
}
