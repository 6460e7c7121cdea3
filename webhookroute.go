package hitl

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/hitlbot/hitl/steer"
)

// Which events go to which receivers, and what they carry.

// WebhookBody is the payload of every delivery (Standard Webhooks'
// {type, timestamp, data}).
type WebhookBody struct {
	Type      WebhookEvent `json:"type"`
	Timestamp time.Time    `json:"timestamp"`
	Data      any          `json:"data"`
}

// WebhookRoutes says which receivers get which events: the configured
// endpoints, and the callbackUrl of a question.
type WebhookRoutes struct {
	Endpoints []WebhookEndpoint
	// NewID makes webhook ids (default NewID("msg_")).
	NewID func() string
}

// deliveries returns the deliveries of webhook event typ about data,
// happening at at: one per endpoint that wants it, plus callback (a
// question's callbackUrl; empty: none).
func (r *WebhookRoutes) deliveries(typ WebhookEvent, runID, questionID, callback string, at time.Time, data any) []WebhookDelivery {
	var out []WebhookDelivery
	add := func(name, u string) {
		out = append(out, WebhookDelivery{Endpoint: name, URL: u, Type: typ, RunID: runID, QuestionID: questionID,
			Status: WebhookPending, CreatedAt: at, NextAt: at})
	}
	if r != nil {
		for _, e := range r.Endpoints {
			if e.Wants(typ, runID) {
				add(e.Name, "")
			}
		}
	}
	if callback != "" && slices.Contains(callbackEvents, typ) {
		add("", callback)
	}
	if len(out) == 0 {
		return nil
	}
	body, err := json.Marshal(WebhookBody{Type: typ, Timestamp: at, Data: data})
	if err != nil {
		return nil // the API's shapes always encode
	}
	id := NewID("msg_")
	if r != nil && r.NewID != nil {
		id = r.NewID()
	}
	for i := range out {
		out[i].ID, out[i].Body = id, body
	}
	return out
}

// ForQuestion returns the deliveries of ev, an event of q (as it is
// after ev): the question redacted as the API shows it.
func (r *WebhookRoutes) ForQuestion(ev *Event, q *Question) []WebhookDelivery {
	typ, ok := questionWebhooks[ev.Type]
	if !ok || q == nil {
		return nil
	}
	return r.deliveries(typ, q.RunID, q.ID, q.CallbackURL, ev.At, q.Redacted())
}

// RunWebhook is the webhook event of a run whose control status moved
// from old to now ("" when none): paused, resumed (paused to running),
// cancelled, done, aborted.
func RunWebhook(old, now steer.RunStatus) WebhookEvent {
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

// ForRun returns the deliveries of a run update: was is the run's
// control status before it, upd what it writes.
func (r *WebhookRoutes) ForRun(was steer.RunStatus, upd RunUpdate, at time.Time) []WebhookDelivery {
	if upd.Run == nil {
		return nil
	}
	typ := RunWebhook(was, upd.Run.Control.Status)
	if typ == "" {
		return nil
	}
	run := *upd.Run
	run.Version++ // as stored: the write that stores it is one more change
	return r.deliveries(typ, run.ID, "", "", at, &run)
}

// PingDelivery is the signed test delivery to endpoint name at now
// (hitl webhooks test): a webhook.ping whose data names the endpoint.
func PingDelivery(name string, now time.Time) WebhookDelivery {
	body, _ := json.Marshal(WebhookBody{Type: WebhookPing, Timestamp: now, Data: map[string]string{"endpoint": name}})
	return WebhookDelivery{ID: NewID("msg_"), Endpoint: name, Type: WebhookPing, Body: body, Status: WebhookPending, CreatedAt: now, NextAt: now}
}
