package memstore

import (
	"context"
	"slices"
	"sort"
	"sync"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// Outbox is an in-memory hitl.Outbox: a queue per target.
type Outbox struct {
	mu       sync.Mutex
	cursor   uint64
	next     uint64
	queues   map[string][]hitl.Delivery // target → deliveries in Seq order
	messages []hitl.Delivered
}

var _ hitl.Outbox = (*Outbox)(nil)

// NewOutbox returns an empty outbox.
func NewOutbox() *Outbox { return &Outbox{queues: map[string][]hitl.Delivery{}} }

// OutboxCursor implements hitl.Outbox.
func (o *Outbox) OutboxCursor(context.Context) (uint64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.cursor, nil
}

// Enqueue implements hitl.Outbox.
func (o *Outbox) Enqueue(_ context.Context, cursor uint64, ds []hitl.Delivery) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range ds {
		o.next++
		ds[i].Seq = o.next
		o.queues[ds[i].Target] = append(o.queues[ds[i].Target], ds[i])
	}
	o.cursor = cursor
	return nil
}

// Targets implements hitl.Outbox (sorting the targets: fine for tests).
func (o *Outbox) Targets(_ context.Context, after string, limit int) ([]string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for t := range o.queues {
		if t > after || after == "" {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// NextDelivery implements hitl.Outbox.
func (o *Outbox) NextDelivery(_ context.Context, target string) (hitl.Delivery, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if q := o.queues[target]; len(q) > 0 {
		return q[0], nil
	}
	return hitl.Delivery{}, fault.Errorf(fault.ENOTFOUND, "no delivery queued for %s", target)
}

// Complete implements hitl.Outbox.
func (o *Outbox) Complete(_ context.Context, d hitl.Delivery, rec *hitl.Delivered) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	q := slices.DeleteFunc(o.queues[d.Target], func(x hitl.Delivery) bool { return x.Seq == d.Seq })
	if len(q) == 0 {
		delete(o.queues, d.Target)
	} else {
		o.queues[d.Target] = q
	}
	if rec != nil {
		for i, m := range o.messages {
			if m.QuestionID == rec.QuestionID && m.Target == rec.Target {
				o.messages[i] = *rec
				return nil
			}
		}
		o.messages = append(o.messages, *rec)
	}
	return nil
}

// Delivered implements hitl.Outbox.
func (o *Outbox) Delivered(_ context.Context, id string) ([]hitl.Delivered, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []hitl.Delivered
	for _, m := range o.messages {
		if m.QuestionID == id {
			out = append(out, m)
		}
	}
	return out, nil
}

// DeliveredAt implements hitl.Outbox.
func (o *Outbox) DeliveredAt(_ context.Context, channel, ts string) (hitl.Delivered, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, m := range o.messages {
		if m.Channel == channel && m.TS == ts {
			return m, nil
		}
	}
	return hitl.Delivered{}, fault.Errorf(fault.ENOTFOUND, "no question delivered as %s in %s", ts, channel)
}

// QueueLength implements hitl.Outbox.
func (o *Outbox) QueueLength(context.Context) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, q := range o.queues {
		n += len(q)
	}
	return n, nil
}
