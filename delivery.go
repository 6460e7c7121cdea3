package hitl

import (
	"context"
	"time"
)

// Delivery is one piece of work an edge that shows questions to people owes
// a target: deliver a question there, or bring the delivered copy up to date.
// Kind is the edge's own (the Slack bot's "post" and "update"). Target is
// where it goes (a channel, or a person for a direct message); deliveries
// to one target are done in order.
type Delivery struct {
	Seq        uint64 `json:"seq"` // outbox order, set by the Outbox
	Kind       string `json:"kind"`
	QuestionID string `json:"questionId"`
	Target     string `json:"target"`
	// Event is the Seq of the event the delivery comes from (0: none). An
	// outbox shared by several processes keeps only the deliveries of
	// events after its cursor, so two that read the same events enqueue
	// their deliveries once.
	Event uint64 `json:"event,omitempty"`
}

// Delivered records where a question was delivered: the message Channel
// and TS (the message's id within it) that the edge's platform returned for
// Target.
type Delivered struct {
	QuestionID string    `json:"questionId"`
	Target     string    `json:"target"`
	Channel    string    `json:"channel"`
	TS         string    `json:"ts"`
	PostedAt   time.Time `json:"postedAt"`
}

// Outbox is an edge's durable delivery state: a cursor into the event log,
// the queue of deliveries derived from it (indexed by target), and the
// records of what was delivered. Every method is durable when it returns;
// errors other than ENOTFOUND are storage failures a retry may fix.
type Outbox interface {
	// OutboxCursor returns the Seq of the last event turned into deliveries.
	OutboxCursor(ctx context.Context) (uint64, error)
	// Enqueue appends ds (setting their Seq) and moves the cursor to
	// cursor, atomically, so no event is turned into deliveries twice.
	Enqueue(ctx context.Context, cursor uint64, ds []Delivery) error
	// Targets returns up to limit targets that have deliveries queued,
	// in byte order after after ("" for the first). Its cost grows with
	// the number returned.
	Targets(ctx context.Context, after string, limit int) ([]string, error)
	// NextDelivery returns target's oldest queued delivery, or ENOTFOUND.
	// Its cost does not grow with the queue.
	NextDelivery(ctx context.Context, target string) (Delivery, error)
	// Complete removes d and, when rec is not nil, records rec, atomically.
	// Completing a delivery no longer queued still records rec.
	Complete(ctx context.Context, d Delivery, rec *Delivered) error
	// Delivered returns where question id was delivered.
	Delivered(ctx context.Context, questionID string) ([]Delivered, error)
	// DeliveredAt returns the record of message ts in channel, or ENOTFOUND.
	DeliveredAt(ctx context.Context, channel, ts string) (Delivered, error)
	// QueueLength returns how many deliveries are queued (the
	// hitl_outbox_depth gauge). Its cost grows with the queue, not with
	// the questions or records stored.
	QueueLength(ctx context.Context) (int, error)
}
