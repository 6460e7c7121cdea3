package hitl

import (
	"slices"
	"time"

	"github.com/hitlbot/hitl/steer"
)

// WebhookEvent names what a webhook reports (the body's "type").
type WebhookEvent string

const (
	WebhookQuestionAnswered  WebhookEvent = "question.answered"
	WebhookQuestionTimedOut  WebhookEvent = "question.timed_out"
	WebhookQuestionCancelled WebhookEvent = "question.cancelled"
	WebhookQuestionReminded  WebhookEvent = "question.reminded"
	WebhookQuestionEscalated WebhookEvent = "question.escalated"
	WebhookRunPaused         WebhookEvent = "run.paused"
	WebhookRunResumed        WebhookEvent = "run.resumed"
	WebhookRunCancelled      WebhookEvent = "run.cancelled"
	WebhookRunDone           WebhookEvent = "run.done"
	WebhookRunAborted        WebhookEvent = "run.aborted"
	// WebhookPing is the signed test delivery of hitl webhooks test.
	WebhookPing WebhookEvent = "webhook.ping"
)

// WebhookEvents are the events an endpoint may subscribe to.
var WebhookEvents = []WebhookEvent{
	WebhookQuestionAnswered, WebhookQuestionTimedOut, WebhookQuestionCancelled, WebhookQuestionReminded,
	WebhookQuestionEscalated, WebhookRunPaused, WebhookRunResumed, WebhookRunCancelled, WebhookRunDone, WebhookRunAborted,
}

// callbackEvents are what a question's own callbackUrl gets: its
// outcome, the moment an agent that saved its state resumes.
var callbackEvents = []WebhookEvent{WebhookQuestionAnswered, WebhookQuestionTimedOut, WebhookQuestionCancelled}

// ForCallback reports whether a question's own callbackUrl gets e.
func (e WebhookEvent) ForCallback() bool { return slices.Contains(callbackEvents, e) }

// WebhookRunEvent is the webhook event of a run whose control status moved
// from old to now ("" when none): paused, resumed (paused to running),
// cancelled, done, aborted.
func WebhookRunEvent(old, now steer.RunStatus) WebhookEvent {
	if old == now {
		return ""
	}
	switch now {
	case steer.RunPaused:
		return WebhookRunPaused
	case steer.RunRunning:
		if old == steer.RunPaused {
			return WebhookRunResumed
		}
	case steer.RunCancelled:
		return WebhookRunCancelled
	case steer.RunDone:
		return WebhookRunDone
	case steer.RunAborted:
		return WebhookRunAborted
	}
	return ""
}

// WebhookBody is the payload of every delivery (Standard Webhooks'
// {type, timestamp, data}).
type WebhookBody struct {
	Type      WebhookEvent `json:"type"`
	Timestamp time.Time    `json:"timestamp"`
	Data      any          `json:"data"`
}
