// Package webhook owns hitl's webhooks: what they are and how they are
// sent.
//
// What they are is the root's vocabulary (package hitl): the events an
// endpoint may subscribe to (WebhookEvent, webhookevent.go), a configured
// endpoint as routing sees it (WebhookRoute, webhookroute.go), one event
// owed to one receiver (WebhookDelivery, an outbox record, and its
// WebhookStatus, webhookdelivery.go), the body every delivery carries
// (WebhookBody) and what one claim of due deliveries may take
// (WebhookClaim, webhookclaim.go). This package is the edge that sends
// them over HTTP: it imports the root, which imports nothing of it. It
// also holds where a question's own callbackUrl may go (CallbackPolicy,
// callback.go), which the service asks through its CallbackCheck.
//
// How they are sent: the Worker sends the deliveries the store's outbox
// holds (written with the events they report), signed per Standard
// Webhooks (sign.go), retrying on Svix's schedule until the receiver
// answers 2xx or the schedule ends (then the delivery has failed). Each
// target (endpoint, or a callbackUrl's host) has its own bounded share of
// the senders, so a slow receiver never delays another, and nothing the
// service does waits on a receiver.
package webhook
