package api

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/ratelimit"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/require"
)

// countingLimiter is a hitl.Limiter that allows the first n creations and
// then asks to wait retry, counting what it was asked.
type countingLimiter struct {
	mu    sync.Mutex
	n     int
	retry time.Duration
	asked int
}

var _ hitl.Limiter = (*countingLimiter)(nil)

func (l *countingLimiter) Allow(string, string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked++
	if l.asked <= l.n {
		return 0
	}
	return l.retry
}

func (l *countingLimiter) calls() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.asked
}

func TestRateLimitOnTheWire(t *testing.T) {
	t.Run("over_the_limit_is_429_with_retry_after_rounded_up", func(t *testing.T) {
		// 40 a minute per principal: a burst of 7, then one every 1.5 s.
		e := newEnvWith(t, ServerConfig{}, func(c *service.ServiceConfig) { c.Limiter = ratelimit.New(40, 0, c.Clock.Now) })
		for range 7 {
			r := e.call(t, "POST", "/api/jobs/job-1/questions", `{"question":"ok?"}`)
			require.Equal(t, http.StatusCreated, r.status, r.raw)
		}
		r := e.call(t, "POST", "/api/jobs/job-1/questions", `{"question":"ok?"}`)
		requireError(t, r, http.StatusTooManyRequests, fault.ERATELIMITED)
		require.Equal(t, "2", r.header.Get("Retry-After"))
		require.Contains(t, r.body["message"], "retry in 1.5s")
		e.clock.Add(1500 * time.Millisecond)
		r = e.call(t, "POST", "/api/jobs/job-1/questions", `{"question":"ok?"}`)
		require.Equal(t, http.StatusCreated, r.status, r.raw)
	})
	t.Run("a_millisecond_is_one_second", func(t *testing.T) {
		lim := &countingLimiter{retry: time.Millisecond}
		e := newEnvWith(t, ServerConfig{}, func(c *service.ServiceConfig) { c.Limiter = lim })
		r := e.call(t, "POST", "/api/jobs/job-1/questions", `{"question":"ok?"}`)
		requireError(t, r, http.StatusTooManyRequests, fault.ERATELIMITED)
		require.Equal(t, "1", r.header.Get("Retry-After"))
	})
	t.Run("client_gets_retry_after", func(t *testing.T) {
		lim := &countingLimiter{retry: 2500 * time.Millisecond}
		e := newEnvWith(t, ServerConfig{}, func(c *service.ServiceConfig) { c.Limiter = lim })
		_, _, err := e.client.Create(context.Background(), "job-1", textQ)
		require.Equal(t, fault.ERATELIMITED, fault.Code(err), "%v", err)
		var he *fault.Error
		require.ErrorAs(t, err, &he)
		require.Equal(t, 3*time.Second, he.RetryAfter)
	})
	t.Run("idempotent_retry_is_not_charged", func(t *testing.T) {
		lim := &countingLimiter{n: 1, retry: time.Minute}
		e := newEnvWith(t, ServerConfig{}, func(c *service.ServiceConfig) { c.Limiter = lim })
		body := `{"question":"ok?","idempotencyKey":"k1"}`
		r := e.call(t, "POST", "/api/jobs/job-1/questions", body)
		require.Equal(t, http.StatusCreated, r.status, r.raw)
		id := r.body["questionId"]
		for range 3 {
			r = e.call(t, "POST", "/api/jobs/job-1/questions", body)
			require.Equal(t, http.StatusOK, r.status, r.raw)
			require.Equal(t, id, r.body["questionId"])
			require.Equal(t, false, r.body["created"])
		}
		require.Equal(t, 1, lim.calls())
		requireError(t, e.call(t, "POST", "/api/jobs/job-1/questions", `{"question":"ok?","idempotencyKey":"k2"}`),
			http.StatusTooManyRequests, fault.ERATELIMITED)
	})
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		" 120 ":                         2 * time.Minute,
		"0":                             0,
		"-5":                            0,
		"soon":                          0,
		"Sat, 01 Mar 2025 12:00:30 GMT": 30 * time.Second,
		"Sat, 01 Mar 2025 11:00:00 GMT": 0,
		"99999999999999999999":          0,
		"9999999999999":                 time.Duration(1<<63 - 1),
	} {
		require.Equal(t, want, wire.RetryAfter(v, now), "%q", v)
	}
}
