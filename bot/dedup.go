package bot

import (
	"sync"
	"time"

	"github.com/hitlbot/hitl"
)

// dedup remembers envelope and event ids for a while, so an envelope Slack
// redelivers (after a missed ack or a reconnect) is acked but not applied
// twice.
type dedup struct {
	mu    sync.Mutex
	clock hitl.Clock
	ttl   time.Duration
	seen  map[string]time.Time
}

func newDedup(clock hitl.Clock, ttl time.Duration) *dedup {
	return &dedup{clock: clock, ttl: ttl, seen: map[string]time.Time{}}
}

// first reports whether none of ids was seen within the TTL, and remembers
// them all.
func (d *dedup) first(ids ...string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.clock.Now()
	if len(d.seen) > 10000 {
		for k, at := range d.seen {
			if now.Sub(at) > d.ttl {
				delete(d.seen, k)
			}
		}
	}
	fresh := true
	for _, id := range ids {
		if id == "" {
			continue
		}
		if at, ok := d.seen[id]; ok && now.Sub(at) <= d.ttl {
			fresh = false
		}
		d.seen[id] = now
	}
	return fresh
}
