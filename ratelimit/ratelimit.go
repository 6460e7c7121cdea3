// Package ratelimit is hitl.Limiter over golang.org/x/time/rate: one token
// bucket per principal and one per run, each refilled at a per-minute rate
// with a burst of ten seconds' worth.
package ratelimit

import (
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"golang.org/x/time/rate"
)

// idleAfter is how long an unused bucket is kept. A full bucket and a
// missing one behave the same, so forgetting idle ones is safe and keeps
// memory bounded by the principals and runs active in that window.
const idleAfter = 10 * time.Minute

// Limiter implements hitl.Limiter. The zero per-minute value turns a
// dimension off.
type Limiter struct {
	perToken, perRun int
	now              func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	used time.Time
}

var _ hitl.Limiter = (*Limiter)(nil)

// New returns a limiter allowing perToken creations a minute per
// principal and perRun per run (0: no limit). now is the clock (nil: the
// wall clock).
func New(perToken, perRun int, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{perToken: perToken, perRun: perRun, now: now, buckets: map[string]*bucket{}}
}

// Allow implements hitl.Limiter: both buckets must have a token; when one
// has not, neither is charged and the longer wait is returned.
func (l *Limiter) Allow(principal, run string) time.Duration {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	var taken []*rate.Reservation
	var wait time.Duration
	for _, b := range []struct {
		key       string
		perMinute int
	}{{"p\x00" + principal, l.perToken}, {"r\x00" + run, l.perRun}} {
		if b.perMinute <= 0 {
			continue
		}
		r := l.bucket(b.key, b.perMinute, now).ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			wait = max(wait, d)
			continue
		}
		taken = append(taken, r)
	}
	if wait > 0 {
		for _, r := range taken {
			r.CancelAt(now)
		}
	}
	return wait
}

func (l *Limiter) bucket(key string, perMinute int, now time.Time) *rate.Limiter {
	b := l.buckets[key]
	if b == nil {
		burst := max(1, (perMinute+5)/6) // ten seconds' worth
		b = &bucket{lim: rate.NewLimiter(rate.Limit(float64(perMinute)/60), burst)}
		l.buckets[key] = b
	}
	b.used = now
	return b.lim
}

// sweep forgets buckets unused for idleAfter, at most once a minute.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < time.Minute {
		return
	}
	l.swept = now
	for k, b := range l.buckets {
		if now.Sub(b.used) > idleAfter {
			delete(l.buckets, k)
		}
	}
}
