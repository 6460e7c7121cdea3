package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWhoMayReadStatsAndScrape is the HTTP edge's rows of the root's
// rule: stats for those who may answer, /metrics for admins; a refusal is
// a 403 JSON error with a code, a missing token a 401.
func TestWhoMayReadStatsAndScrape(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hitl_up 1\n")) })
	e := newEnv(t, ServerConfig{Tokens: accessTokens(), Metrics: metrics})
	e.server.stats = e.svc.Observation // the watched wrapper the env serves counts waits only
	for _, r := range []struct {
		path, who string
		status    int
	}{
		{"/api/stats", "answerer", http.StatusOK},
		{"/api/stats", "alice", http.StatusOK},
		{"/api/stats", "admin", http.StatusOK},
		{"/api/stats", "ci", http.StatusForbidden},
		{"/api/stats", "", http.StatusUnauthorized},
		{"/metrics", "admin", http.StatusOK},
		{"/metrics", "answerer", http.StatusForbidden},
		{"/metrics", "ci", http.StatusForbidden},
		{"/metrics", "", http.StatusUnauthorized},
	} {
		t.Run(r.path+" as "+r.who, func(t *testing.T) {
			var h []string
			if r.who != "" {
				h = as(r.who)
			}
			got := e.call(t, "GET", r.path, "", h...)
			assert.Equal(t, r.status, got.status, got.raw)
			switch {
			case r.status == http.StatusForbidden:
				assert.Equal(t, "forbidden", got.body["code"])
			case r.status == http.StatusUnauthorized:
				assert.Equal(t, "unauthorized", got.body["code"])
			case r.path == "/metrics":
				assert.Equal(t, "hitl_up 1\n", got.raw)
			default:
				assert.Contains(t, got.body, "timeoutRateByType")
			}
		})
	}
	t.Run("a bad window is a 400 with a code", func(t *testing.T) {
		got := e.call(t, "GET", "/api/stats?since=soon", "", as("admin")...)
		assert.Equal(t, http.StatusBadRequest, got.status)
		assert.Equal(t, "invalid", got.body["code"])
	})
	t.Run("without a metrics handler /metrics is not served", func(t *testing.T) {
		plain := newEnv(t, ServerConfig{Tokens: accessTokens()})
		got := plain.call(t, "GET", "/metrics", "", as("admin")...)
		assert.Equal(t, http.StatusNotFound, got.status)
	})
}
