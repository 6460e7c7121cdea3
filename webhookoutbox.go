package hitl

import (
	"context"
	"time"
)

// WebhookFilter selects deliveries: by Status (empty: all), newest first,
// before Before (a Seq; 0: from the newest), at most Limit (0: 100).
type WebhookFilter struct {
	Status WebhookStatus
	Before uint64
	Limit  int
}

// WebhookOutbox is the webhook worker's durable state. Deliveries are
// enqueued by the Store with the event they report (Event.Webhooks: in
// its transaction, their Event set to its Seq, their Seq assigned, their
// Status pending). Every method is durable when it returns; several
// processes may share one outbox (replicas): each delivery is claimed by
// one of them at a time.
type WebhookOutbox interface {
	// ClaimWebhooks returns the pending deliveries due at now that c
	// takes (WebhookClaim: the worker's capacity rules; the zero Claim
	// takes all), earliest first (then by Seq), each the first pending
	// one of its (Target, RunID) queue: it reads them in that order,
	// leaving out what c.Skip names, asks c's Pick to Take each (by its
	// Target and Asker) and stops when the Pick is Full. It claims them
	// until until (NextAt becomes until, Claim the next number): nobody
	// claims them again before then. Its cost grows with the number
	// returned, and the due heads Take refuses.
	ClaimWebhooks(ctx context.Context, now, until time.Time, c WebhookClaim) ([]WebhookDelivery, error)
	// SettleWebhook stores d's Status, Attempts, NextAt, LastError,
	// LastCode and SettledAt if d.Claim is still the delivery's last
	// claim (ECONFLICT otherwise, ENOTFOUND for an unknown Seq). A
	// delivery no longer pending lets the next of its queue go.
	SettleWebhook(ctx context.Context, d WebhookDelivery) error
	// WebhookDelivery returns delivery seq, or ENOTFOUND.
	WebhookDelivery(ctx context.Context, seq uint64) (WebhookDelivery, error)
	// WebhookDeliveries returns a page of deliveries matching f, newest
	// first. Its cost grows with the page (by a status index).
	WebhookDeliveries(ctx context.Context, f WebhookFilter) ([]WebhookDelivery, error)
	// ReplayWebhook enqueues a copy of delivery seq (same ID, body and
	// receiver; pending, due at now, no attempts) at the end of its
	// queue, and returns it; ENOTFOUND for an unknown seq.
	ReplayWebhook(ctx context.Context, seq uint64, now time.Time) (WebhookDelivery, error)
	// WebhookStats returns, per target with pending or failed
	// deliveries or a success, the counts and the last success, by
	// target name. Its cost grows with the pending and failed deliveries.
	WebhookStats(ctx context.Context) ([]WebhookTargetStats, error)
	// PruneWebhooks deletes up to limit delivered or failed deliveries
	// settled before before, and returns how many (less than limit when
	// done).
	PruneWebhooks(ctx context.Context, before time.Time, limit int) (int, error)
}

// PageSize is f's limit, bounded like question pages.
func (f WebhookFilter) PageSize() int {
	return QuestionFilter{Limit: f.Limit}.PageSize()
}
