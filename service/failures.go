package service

import (
	"sync"
	"time"

	"github.com/hitlbot/hitl"
)

// maxFailures bounds the failed creations a failureLog remembers.
const maxFailures = 10000

// failureLog keeps when question creations failed, for the
// creation_errors alert: in memory, the last maxFailures.
type failureLog struct {
	mu sync.Mutex
	at []time.Time
}

// note records err's failure at the clock's now, when it counts.
func (f *failureLog) note(err error, c hitl.Clock) {
	if !CreationFailed(err) {
		return
	}
	now := c.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.at) == maxFailures {
		f.at = f.at[1:]
	}
	f.at = append(f.at, now)
}

// count returns how many failures happened at or after since, and
// forgets the older ones.
func (f *failureLog) count(since time.Time) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for n < len(f.at) && f.at[n].Before(since) {
		n++
	}
	f.at = f.at[n:]
	return len(f.at)
}

// creationFailures is how many creations failed since then.
func (s *Questions) creationFailures(since time.Time) int { return s.failures.count(since) }

// creationFailures is how many creations failed since then (none counted
// without Questions).
func (s *Observation) creationFailures(since time.Time) int {
	if s.failures == nil {
		return 0
	}
	return s.failures.creationFailures(since)
}
