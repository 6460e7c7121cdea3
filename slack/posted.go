package slack

import (
	"context"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// postedWait is how long a reply to a message the bot has just posted waits
// for the post to be recorded (within the ack budget).
const postedWait = 1500 * time.Millisecond

// postings broadcasts each time a posted message is recorded, so an event
// about a message Slack delivered before the bot recorded it is not lost.
type postings struct {
	mu sync.Mutex
	ch chan struct{}
}

func (p *postings) next() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ch == nil {
		p.ch = make(chan struct{})
	}
	return p.ch
}

func (p *postings) recorded() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ch != nil {
		close(p.ch)
		p.ch = nil
	}
}

// messageAt finds the question posted as ts in channel. While posts are in
// flight it waits (up to postedWait) for them to be recorded.
func (b *Bot) messageAt(ctx context.Context, channel, ts string) (hitl.Delivered, error) {
	deadline := time.NewTimer(postedWait)
	defer deadline.Stop()
	for {
		next := b.posted.next()
		m, err := b.outbox.DeliveredAt(ctx, channel, ts)
		if fault.Code(err) != fault.ENOTFOUND || !b.work.busy() {
			return m, err
		}
		select {
		case <-next:
		case <-deadline.C:
			return m, err
		case <-ctx.Done():
			return m, ctx.Err()
		}
	}
}
