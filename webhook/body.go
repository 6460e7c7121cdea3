package webhook

import (
	"encoding/json"
	"time"

	"github.com/hitlbot/hitl/internal/uid"
	"github.com/hitlbot/hitl/steer"
)

// Body is the payload of every delivery (Standard Webhooks'
// {type, timestamp, data}).
type Body struct {
	Type      Event     `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      any       `json:"data"`
}

// RunEvent is the webhook event of a run whose control status moved
// from old to now ("" when none): paused, resumed (paused to running),
// cancelled, done, aborted.
func RunEvent(old, now steer.RunStatus) Event {
	if old == now {
		return ""
	}
	switch now {
	case steer.RunPaused:
		return RunPaused
	case steer.RunRunning:
		if old == steer.RunPaused {
			return RunResumed
		}
	case steer.RunCancelled:
		return RunCancelled
	case steer.RunDone:
		return RunDone
	case steer.RunAborted:
		return RunAborted
	}
	return ""
}

// PingDelivery is the signed test delivery to endpoint name at now
// (hitl webhooks test): a webhook.ping whose data names the endpoint.
func PingDelivery(name string, now time.Time) Delivery {
	body, _ := json.Marshal(Body{Type: Ping, Timestamp: now, Data: map[string]string{"endpoint": name}})
	return Delivery{ID: uid.New("msg_"), Endpoint: name, Type: Ping, Body: body, Status: Pending, CreatedAt: now, NextAt: now}
}
