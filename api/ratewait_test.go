package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rateLimitedServer refuses the first n requests with 429 and
// Retry-After: 3, then answers a run state.
func rateLimitedServer(t *testing.T, n int32) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if calls.Add(1) <= n {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"code":"rate_limited","message":"slow down"}`))
			return
		}
		_, _ = w.Write([]byte(`{"runId":"run-1"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestClientWaitsOutRateLimits(t *testing.T) {
	t.Run("with WithRateLimitWait it waits Retry-After and tries again", func(t *testing.T) {
		srv, calls := rateLimitedServer(t, 2)
		var waited []time.Duration
		after := func(d time.Duration) <-chan time.Time {
			waited = append(waited, d)
			ch := make(chan time.Time, 1)
			ch <- time.Time{}
			return ch
		}
		st, err := client.NewClient(srv.URL, "").With(client.WithRateLimitWait(after)).RunState(context.Background(), "run-1")
		require.NoError(t, err)
		assert.Equal(t, "run-1", st.RunID)
		assert.Equal(t, []time.Duration{3 * time.Second, 3 * time.Second}, waited)
		assert.Equal(t, int32(3), calls.Load())
	})
	t.Run("without it a 429 is returned at once", func(t *testing.T) {
		srv, calls := rateLimitedServer(t, 1)
		_, err := client.NewClient(srv.URL, "").RunState(context.Background(), "run-1")
		require.Equal(t, fault.ERATELIMITED, fault.Code(err))
		assert.Equal(t, int32(1), calls.Load())
	})
	t.Run("a deadline before the retry returns the refusal without waiting", func(t *testing.T) {
		srv, calls := rateLimitedServer(t, 1)
		never := func(time.Duration) <-chan time.Time { t.Error("waited past the deadline"); return nil }
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := client.NewClient(srv.URL, "", client.WithRateLimitWait(never)).RunState(ctx, "run-1")
		require.Equal(t, fault.ERATELIMITED, fault.Code(err))
		assert.Equal(t, int32(1), calls.Load())
	})
	t.Run("the caller giving up ends the wait", func(t *testing.T) {
		srv, _ := rateLimitedServer(t, 1)
		ctx, cancel := context.WithCancel(context.Background())
		blocked := func(time.Duration) <-chan time.Time { cancel(); return make(chan time.Time) }
		_, err := client.NewClient(srv.URL, "", client.WithRateLimitWait(blocked)).RunState(ctx, "run-1")
		require.ErrorIs(t, err, context.Canceled)
	})
}
