package memstore

import (
	"context"
	"sort"
	"sync"

	"github.com/hitlbot/hitl"
)

// Outbox is an in-memory hitl.SlackOutbox.
type Outbox struct {
	mu       sync.Mutex
	cursor   uint64
	next     uint64
	tasks    map[uint64]hitl.SlackTask
	messages []hitl.SlackMessage
}

var _ hitl.SlackOutbox = (*Outbox)(nil)

// NewOutbox returns an empty outbox.
func NewOutbox() *Outbox { return &Outbox{tasks: map[uint64]hitl.SlackTask{}} }

// SlackCursor implements hitl.SlackOutbox.
func (o *Outbox) SlackCursor(context.Context) (uint64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.cursor, nil
}

// EnqueueSlack implements hitl.SlackOutbox.
func (o *Outbox) EnqueueSlack(_ context.Context, cursor uint64, tasks []hitl.SlackTask) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, t := range tasks {
		o.next++
		t.Seq = o.next
		o.tasks[t.Seq] = t
	}
	o.cursor = cursor
	return nil
}

// SlackTasks implements hitl.SlackOutbox.
func (o *Outbox) SlackTasks(context.Context) ([]hitl.SlackTask, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]hitl.SlackTask, 0, len(o.tasks))
	for _, t := range o.tasks {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

// CompleteSlackTask implements hitl.SlackOutbox.
func (o *Outbox) CompleteSlackTask(_ context.Context, t hitl.SlackTask, msg *hitl.SlackMessage) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.tasks, t.Seq)
	if msg != nil {
		for i, m := range o.messages {
			if m.QuestionID == msg.QuestionID && m.Target == msg.Target {
				o.messages[i] = *msg
				return nil
			}
		}
		o.messages = append(o.messages, *msg)
	}
	return nil
}

// SlackMessages implements hitl.SlackOutbox.
func (o *Outbox) SlackMessages(_ context.Context, id string) ([]hitl.SlackMessage, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []hitl.SlackMessage
	for _, m := range o.messages {
		if m.QuestionID == id {
			out = append(out, m)
		}
	}
	return out, nil
}

// SlackMessageAt implements hitl.SlackOutbox.
func (o *Outbox) SlackMessageAt(_ context.Context, channel, ts string) (hitl.SlackMessage, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, m := range o.messages {
		if m.Channel == channel && m.TS == ts {
			return m, nil
		}
	}
	return hitl.SlackMessage{}, hitl.Errorf(hitl.ENOTFOUND, "no question posted as %s in %s", ts, channel)
}
