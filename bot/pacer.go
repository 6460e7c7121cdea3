package bot

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

// reserve takes target's next slot and returns how long to wait for it.
func (p *pacer) reserve(target string) time.Duration {
	now := p.now()
	p.mu.Lock()
	lim, ok := p.limits[target]
	if !ok {
		lim = rate.NewLimiter(rate.Every(p.every), 1)
		p.limits[target] = lim
	}
	p.mu.Unlock()
	return lim.ReserveN(now, 1).DelayFrom(now)
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
