package api

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/require"
)

// A load balancer's health check: 503 with a code while the process
// cannot reach its database, 200 again by itself once it can.
func TestHealthzFollowsReadiness(t *testing.T) {
	var down atomic.Bool
	e := newEnv(t, ServerConfig{Ready: func(context.Context) error {
		if down.Load() {
			return fault.Errorf(fault.EUNAVAILABLE, "the database is unreachable")
		}
		return nil
	}})
	require.Equal(t, http.StatusOK, e.call(t, "GET", "/healthz", "").status)
	down.Store(true)
	r := e.call(t, "GET", "/healthz", "")
	requireError(t, r, http.StatusServiceUnavailable, fault.EUNAVAILABLE)
	down.Store(false)
	require.Equal(t, http.StatusOK, e.call(t, "GET", "/healthz", "").status)
}
