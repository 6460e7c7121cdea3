package slack

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// pacer keeps one token-bucket limiter per target (burst 1, one write per
// interval: Slack allows about one message per second per channel). A
// limiter lives while its target has work or its bucket is not full again.
type pacer struct {
	every time.Duration
	now   func() time.Time

	mu     sync.Mutex
	limits map[string]*rate.Limiter
}

func newPacer(every time.Duration) *pacer {
	return &pacer{every: every, now: time.Now, limits: map[string]*rate.Limiter{}}
}

// delay returns how long target's next write must wait: until an interval
// has passed since its last write ended.
func (p *pacer) delay(target string) time.Duration {
	now := p.now()
	lim := p.limiter(target)
	tokens := lim.TokensAt(now)
	if tokens >= 1 {
		return 0
	}
	return time.Duration((1 - tokens) * float64(p.every))
}

// took records a write to target that has just ended. Pacing from the end
// of a write, not its start, keeps writes an interval apart as Slack sees
// them, whatever each call's latency.
func (p *pacer) took(target string) {
	p.limiter(target).ReserveN(p.now(), 1)
}

func (p *pacer) limiter(target string) *rate.Limiter {
	p.mu.Lock()
	defer p.mu.Unlock()
	lim, ok := p.limits[target]
	if !ok {
		lim = rate.NewLimiter(rate.Every(p.every), 1)
		p.limits[target] = lim
	}
	return lim
}

// forget drops target's limiter once its bucket is full again (pacing
// would not delay its next write): targets come and go without the map
// growing.
func (p *pacer) forget(target string) {
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if lim, ok := p.limits[target]; ok && lim.TokensAt(now) >= 1 {
		delete(p.limits, target)
	}
	if len(p.limits) > maxIdleLimiters { // targets that retired owing a slot
		for t, lim := range p.limits {
			if lim.TokensAt(now) >= 1 {
				delete(p.limits, t)
			}
		}
	}
}

// maxIdleLimiters is how many limiters pacer keeps before sweeping those
// whose bucket is full again.
const maxIdleLimiters = 1024

// size is how many limiters are kept.
func (p *pacer) size() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.limits)
}
