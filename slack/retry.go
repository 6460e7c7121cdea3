package slack

import (
	"context"
	"sync"
	"time"
)

// backoff is the bot's one retry policy: after a failure that is not
// the target's own (Slack down, a 5xx, the network, the store) every worker
// waits out the same delay, which doubles from min to max with each further
// failure and starts over after a success. Slack's per-channel Retry-After
// is not shared: it is the target's own pace (see drain).
type backoff struct {
	min, max time.Duration
	now      func() time.Time

	mu    sync.Mutex
	delay time.Duration // the last delay handed out; 0 after a success
	until time.Time     // nobody retries before this
}

func newBackoff(min, max time.Duration) *backoff {
	return &backoff{min: min, max: max, now: time.Now}
}

// step is the delay after prev: min, then doubling up to max.
func (b *backoff) step(prev time.Duration) time.Duration {
	if prev < b.min {
		return b.min
	}
	return min(prev*2, b.max)
}

// failed records a failure and returns how long everyone now waits.
func (b *backoff) failed() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.delay = b.step(b.delay)
	if until := b.now().Add(b.delay); until.After(b.until) {
		b.until = until
	}
	return b.until.Sub(b.now())
}

// succeeded starts the doubling over.
func (b *backoff) succeeded() {
	b.mu.Lock()
	b.delay = 0
	b.mu.Unlock()
}

// pause returns how long is left of the shared wait.
func (b *backoff) pause() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.until.Sub(b.now())
}

// wait sleeps out the shared wait; false when ctx ended first.
func (b *backoff) wait(ctx context.Context) bool { return sleep(ctx, b.pause()) }

// sleep waits d or until ctx ends; it reports whether the wait completed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
