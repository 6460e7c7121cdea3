// Package clocktest provides a settable clock for tests.
package clocktest

import (
	"sync"
	"time"
)

// Clock is a hitl.Clock that moves only when told.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a clock stopped at t.
func New(t time.Time) *Clock { return &Clock{now: t.UTC()} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock forward by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t.UTC()
}
