package webhook

import (
	"encoding/json"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/uid"
)

// PingDelivery is the signed test delivery to endpoint name at now
// (hitl webhooks test): a webhook.ping whose data names the endpoint.
func PingDelivery(name string, now time.Time) hitl.WebhookDelivery {
	body, _ := json.Marshal(hitl.WebhookBody{Type: hitl.WebhookPing, Timestamp: now, Data: map[string]string{"endpoint": name}})
	return hitl.WebhookDelivery{ID: uid.New("msg_"), Endpoint: name, Type: hitl.WebhookPing, Body: body, Status: hitl.WebhookPending, CreatedAt: now, NextAt: now}
}
