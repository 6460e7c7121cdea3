package slack

import (
	"context"

	"github.com/hitlbot/hitl"
)

// Replicas on one database share the outbox and its cursor: the events
// one replica turned into deliveries, another never reads while
// projecting. The App Home tabs a replica keeps fresh are those opened
// through its own Socket Mode connection, so it reads the events it did
// not project itself once more, only while such a tab is open, and
// marks its tabs stale when any of them touched a question.

// touches reports whether ev changes what an App Home tab shows.
func touches(ev *hitl.Event) bool {
	return ev.QuestionID != "" && ev.Type != hitl.EventRefused
}

// catchUp brings this replica's tabs up to the log at upTo (the shared
// outbox cursor): events after what it has looked at were projected by
// another replica. With no tab open it reads nothing.
func (h *homes) catchUp(ctx context.Context, upTo uint64) error {
	from := h.seq.Load()
	if from >= upTo {
		return nil
	}
	if from == 0 {
		// Not looked yet (this process just started): a refresh of the
		// tabs open already costs less than reading the log from its
		// start.
		h.seq.Store(upTo)
		if h.anyOpen() {
			h.touched()
		}
		return nil
	}
	if !h.anyOpen() {
		h.seq.Store(upTo)
		return nil
	}
	for from < upTo {
		evs, last, err := h.b.svc.Log.Events(ctx, from, eventPage)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if ev.Seq <= upTo && touches(ev) {
				h.touched()
				h.seq.Store(upTo)
				return nil
			}
		}
		if last <= from {
			break
		}
		from = last
	}
	h.seq.Store(upTo)
	return nil
}

// looked records that this replica read the log up to seq itself.
func (h *homes) looked(seq uint64) {
	for {
		cur := h.seq.Load()
		if cur >= seq || h.seq.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// anyOpen reports whether a tab is open on this replica.
func (h *homes) anyOpen() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.open) > 0
}
