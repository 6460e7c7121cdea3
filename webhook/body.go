package webhook

import (
	"encoding/json"
	"time"

	"github.com/hitlbot/hitl/internal/uid"
	"github.com/hitlbot/hitl/steer"
)

// WebhookBody is the payload of every delivery (Standard Webhooks'
// {type, timestamp, data}).
type WebhookBody struct {
	Type      WebhookEvent `json:"type"`
	Timestamp time.Time    `json:"timestamp"`
	Data      any          `json:"data"`
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

// PingDelivery is the signed test delivery to endpoint name at now
// (hitl webhooks test): a webhook.ping whose data names the endpoint.
func PingDelivery(name string, now time.Time) WebhookDelivery {
	body, _ := json.Marshal(WebhookBody{Type: WebhookPing, Timestamp: now, Data: map[string]string{"endpoint": name}})
	return WebhookDelivery{ID: uid.New("msg_"), Endpoint: name, Type: WebhookPing, Body: body, Status: WebhookPending, CreatedAt: now, NextAt: now}
}
