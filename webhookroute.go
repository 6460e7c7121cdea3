package hitl

import (
	"encoding/json"
	"path"
	"slices"
	"time"

	"github.com/hitlbot/hitl/steer"
	"github.com/hitlbot/hitl/uid"
)

// Which events go to which receivers, and what they carry.

// WebhookRoutes says which receivers get which events: the configured
// endpoints, and the callbackUrl of a question.
type WebhookRoutes struct {
	Endpoints []WebhookRoute
	// NewID makes webhook ids (default uid.New("msg_")).
	NewID func() string
}

// deliveries returns the deliveries of webhook event typ about data,
// happening at at: one per endpoint that wants it, plus callback (a
// question's callbackUrl, asked by asker; empty: none).
func (r *WebhookRoutes) deliveries(typ WebhookEvent, runID, questionID, callback, asker string, at time.Time, data any) []WebhookDelivery {
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
	if callback != "" && typ.ForCallback() {
		add("", callback)
		out[len(out)-1].Asker = asker // callbacks are capped per asker
	}
	if len(out) == 0 {
		return nil
	}
	body, err := json.Marshal(WebhookBody{Type: typ, Timestamp: at, Data: data})
	if err != nil {
		return nil // the API's shapes always encode
	}
	id := uid.New("msg_")
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
	return r.deliveries(typ, q.RunID, q.ID, q.CallbackURL, q.Asker, ev.At, q.Redacted())
}

// ForRun returns the deliveries of a run update: was is the run's
// control status before it, upd what it writes.
func (r *WebhookRoutes) ForRun(was steer.RunStatus, upd RunUpdate, at time.Time) []WebhookDelivery {
	if upd.Run == nil {
		return nil
	}
	typ := WebhookRunEvent(was, upd.Run.Control.Status)
	if typ == "" {
		return nil
	}
	run := *upd.Run
	run.Version++ // as stored: the write that stores it is one more change
	return r.deliveries(typ, run.ID, "", "", "", at, &run)
}

// questionWebhooks maps the log's question events to webhook events.
var questionWebhooks = map[EventType]WebhookEvent{
	EventQuestionAnswered:  WebhookQuestionAnswered,
	EventQuestionTimeout:   WebhookQuestionTimedOut,
	EventQuestionCancelled: WebhookQuestionCancelled,
	EventQuestionReminded:  WebhookQuestionReminded,
	EventQuestionEscalated: WebhookQuestionEscalated,
}

// WebhookRoute is a configured receiver: the events it gets, for the
// runs whose id matches Runs (a path.Match glob; empty: every run).
// Its secret is the webhook edge's (read from a file), never here.
type WebhookRoute struct {
	Name   string         `json:"name"`
	URL    string         `json:"url"`
	Events []WebhookEvent `json:"events"`
	Runs   string         `json:"runs,omitempty"`
}

// Wants reports whether e gets event typ of run runID.
func (e WebhookRoute) Wants(typ WebhookEvent, runID string) bool {
	if !slices.Contains(e.Events, typ) {
		return false
	}
	if e.Runs == "" || e.Runs == "*" {
		return true
	}
	ok, err := path.Match(e.Runs, runID)
	return ok && err == nil
}
