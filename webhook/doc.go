// Package webhook owns hitl's webhooks: what they are and how they are
// sent.
//
// What they are: the events an endpoint may subscribe to (Event), a
// configured endpoint as routing sees it (Route), one event owed to one
// receiver (Delivery, an outbox record, and its Status), where a
// question's own callbackUrl may go (CallbackPolicy), and the body every
// delivery carries (Body). The root package names these in its records
// (Event.Webhooks, the store's WebhookOutbox), so this package imports
// nothing of the root: it sits below it, and declares the narrow Outbox
// and Clock its worker needs.
//
// How they are sent: the Worker sends the deliveries the store's outbox
// holds (written with the events they report), signed per Standard
// Webhooks (sign.go), retrying on Svix's schedule until the receiver
// answers 2xx or the schedule ends (then the delivery has failed). Each
// target (endpoint, or a callbackUrl's host) has its own bounded share of
// the senders, so a slow receiver never delays another, and nothing the
// service does waits on a receiver.
package webhook
