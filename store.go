package hitl

import (
	"context"
	"time"
)

// Store is every store by aggregate, for the contract suite
// (internal/storetest) only: a backend (bbolt store, postgres,
// internal/memstore) implements each part whole, and code that needs one
// part takes that part (the service's parts their own, wiring what it
// hands on: cmd/hitl's Database). Every method that returns
// without error has made its writes durable (fsync'd). Implementations
// must be safe for concurrent use. The Slack outbox (Outbox) and the mail
// outbox (MailOutbox) are wired apart.
type Store interface {
	QuestionStore
	ReminderStore // reminder.go
	RunStore
	EventStore
	PolicyStore
	RetentionStore
	// SignInStore keeps the web inbox's sign-ins (signin.go).
	SignInStore
	// EnvelopeStore remembers the envelopes an edge handled (envelope.go).
	EnvelopeStore
	// WebhookOutbox holds the webhook deliveries events owe (webhook.go).
	WebhookOutbox
}

// RetentionStore forgets what retention no longer keeps: settled
// questions, the events, runs and Slack records that go with them.
type RetentionStore interface {
	// Prune deletes up to limit questions settled before before (with
	// their index entries, run counts and Slack records) and up to limit
	// events older than before, and returns how many records (questions
	// and events) it deleted: less than limit when it is done.
	Prune(ctx context.Context, before time.Time, limit int) (int, error)
}
