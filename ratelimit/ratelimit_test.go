package ratelimit_test

import (
	"testing"
	"time"

	"github.com/hitlbot/hitl/ratelimit"
	"github.com/stretchr/testify/assert"
)

func TestLimiter(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }

	t.Run("a run gets its burst, then waits for the refill", func(t *testing.T) {
		l := ratelimit.New(0, 30, clock) // burst 5, one every 2 s
		for i := range 5 {
			assert.Zero(t, l.Allow("api:ci", "run-1"), "creation %d is within the burst", i+1)
		}
		d := l.Allow("api:ci", "run-1")
		assert.InDelta(t, 2*time.Second, d, float64(10*time.Millisecond), "the sixth waits one refill")
		assert.Zero(t, l.Allow("api:ci", "run-2"), "another run has its own budget")
		now = now.Add(2 * time.Second)
		assert.Zero(t, l.Allow("api:ci", "run-1"), "after the refill one more is allowed")
	})
	t.Run("a principal's budget spans its runs", func(t *testing.T) {
		l := ratelimit.New(6, 0, clock) // burst 1, one every 10 s
		assert.Zero(t, l.Allow("api:ci", "a"))
		assert.Positive(t, l.Allow("api:ci", "b"))
		assert.Zero(t, l.Allow("api:other", "b"), "another principal is not throttled")
	})
	t.Run("refused by one bucket charges neither", func(t *testing.T) {
		l := ratelimit.New(6, 6, clock)
		assert.Zero(t, l.Allow("api:a", "r"))
		assert.Positive(t, l.Allow("api:b", "r"), "the run is out")
		assert.Zero(t, l.Allow("api:b", "other"), "api:b was not charged for the refused try")
	})
	t.Run("zero turns limits off", func(t *testing.T) {
		l := ratelimit.New(0, 0, clock)
		for range 1000 {
			assert.Zero(t, l.Allow("api:ci", "run-1"))
		}
	})
}
