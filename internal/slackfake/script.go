package slackfake

import (
	"math"
	"time"
)

// failure is one scripted HTTP failure.
type failure struct {
	status     int
	retryAfter time.Duration
}

// FailNext makes the next n calls to method (any method if "*") fail with
// HTTP status. For 429, retryAfter > 0 sets a Retry-After header in whole
// seconds (rounded up), which slack-go turns into *slack.RateLimitedError;
// without it slack-go sees a plain slack.StatusCodeError. Failures queue up
// in the order they were scripted.
func (s *Server) FailNext(method string, n int, status int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures[method] = append(s.failures[method], failure{status: status, retryAfter: retryAfter})
	}
}

// takeFailureLocked pops the next scripted failure for method.
func (s *Server) takeFailureLocked(method string) (failure, bool) {
	for _, key := range []string{method, "*"} {
		if q := s.failures[key]; len(q) > 0 {
			s.failures[key] = q[1:]
			return q[0], true
		}
	}
	return failure{}, false
}

// SetDown makes every Web API call, apps.connections.open included, fail
// with HTTP 503 while down is true. Open sockets stay open.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
}

// SetUnreachable makes the fake close every Web API connection without
// answering while on is true, which clients see as a transport error.
func (s *Server) SetUnreachable(on bool) {
	s.mu.Lock()
	s.drop = on
	s.mu.Unlock()
}

// bucket is a token bucket for one channel's chat.postMessage calls.
type bucket struct {
	tokens float64
	last   time.Time
}

// rateLimitedLocked takes a token for channel; when none is left it says
// how long until one is.
func (s *Server) rateLimitedLocked(channel string) (time.Duration, bool) {
	if s.cfg.postRate <= 0 {
		return 0, false
	}
	now := s.cfg.clock.Now()
	b, ok := s.buckets[channel]
	if !ok {
		b = &bucket{tokens: float64(s.cfg.postBurst), last: now}
		s.buckets[channel] = b
	}
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(float64(s.cfg.postBurst), b.tokens+elapsed*s.cfg.postRate)
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return 0, false
	}
	wait := time.Duration((1 - b.tokens) / s.cfg.postRate * float64(time.Second))
	return wait, true
}

// ceilSeconds rounds d up to whole seconds, at least 1 for positive d.
func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Ceil(d.Seconds()))
}
