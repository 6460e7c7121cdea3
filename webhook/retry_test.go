package webhook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRetry(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	rows := []struct {
		name     string
		attempts int
		jitter   float64
		want     time.Duration
		ok       bool
	}{
		{"after the first failure: 5 s", 1, 0.5, 5 * time.Second, true},
		{"after the second: 5 min", 2, 0.5, 5 * time.Minute, true},
		{"after the third: 30 min", 3, 0.5, 30 * time.Minute, true},
		{"after the fourth: 2 h", 4, 0.5, 2 * time.Hour, true},
		{"after the fifth: 5 h", 5, 0.5, 5 * time.Hour, true},
		{"after the sixth: 10 h", 6, 0.5, 10 * time.Hour, true},
		{"after the seventh: 10 h", 7, 0.5, 10 * time.Hour, true},
		{"after the eighth: failed", 8, 0.5, 0, false},
		{"jitter moves a wait down by 10 % at most", 4, 0, 108 * time.Minute, true},
		{"and up by 10 % at most", 4, 0.999999999, 132 * time.Minute, true},
		{"no failure yet is no retry", 0, 0.5, 0, false},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			next, ok := Retry(r.attempts, now, r.jitter)
			assert.Equal(t, r.ok, ok)
			if r.ok {
				assert.InDelta(t, r.want.Seconds(), next.Sub(now).Seconds(), 0.001)
			}
		})
	}
	var window time.Duration
	for _, d := range Schedule {
		window += d
	}
	assert.Equal(t, 27*time.Hour+35*time.Minute+5*time.Second, window, "Svix's window")
}
