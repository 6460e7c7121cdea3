package api

import (
	"net/http"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/observe"
)

// handleStats serves GET /api/stats?since=24h&run=R.
func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	if s.stats == nil {
		writeError(w, r, s.log, fault.Errorf(fault.ENOTFOUND, "stats are not served here"))
		return
	}
	since, err := observe.ParseSince(r.URL.Query().Get("since"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	st, err := s.stats.Stats(r.Context(), observe.StatsQuery{Since: since, Run: r.URL.Query().Get("run")})
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// handleMetrics serves GET /metrics to whoever the root lets scrape (an
// admin token when tokens are set).
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	g := s.scrape
	if g == nil {
		writeError(w, r, s.log, fault.Errorf(fault.EFORBIDDEN, "this server cannot tell who may scrape /metrics"))
		return
	}
	if err := g.AuthorizeScrape(r.Context()); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.cfg.Metrics.ServeHTTP(w, r)
}

// EventStreams is how many SSE event streams are open (hitl_event_streams).
func (s *Server) EventStreams() int { return s.stream.Count() }
