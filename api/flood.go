package api

import (
	"net/http"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/auth"
)

// openStream takes one of the caller's concurrent streams (an SSE stream,
// a long poll, a checkpoint held while paused) from the guard, or answers
// 429 too_many_streams with Retry-After. ok false: the answer is written.
func (s *Server) openStream(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	if s.guard == nil {
		return func() {}, true
	}
	release, err := s.guard.OpenStream(r.Context())
	if err != nil {
		writeError(w, r, s.log, err)
		return nil, false
	}
	return release, true
}

// throttled charges the request to the caller's rate limit l, or answers
// 429 rate_limited with Retry-After. It reports whether to go on.
func (s *Server) throttled(w http.ResponseWriter, r *http.Request, l hitl.Limit) bool {
	if s.guard == nil {
		return true
	}
	if err := s.guard.Throttle(r.Context(), l); err != nil {
		writeError(w, r, s.log, err)
		return false
	}
	return true
}

// servesPolicy answers 503 when policies are not served and 429 past the
// caller's policy rate limit, and reports whether to go on.
func (s *Server) servesPolicy(w http.ResponseWriter, r *http.Request) bool {
	return s.serves(w, r, s.policies != nil, "approval policy") && s.throttled(w, r, hitl.LimitPolicy)
}

// handleWhoami serves GET /api/whoami: the principal the request acts as,
// so that a client can name its own runs (hitl.DefaultRunID).
func (s *Server) handleWhoami(w http.ResponseWriter, r *http.Request) {
	p := auth.PrincipalFrom(r.Context())
	scopes := p.Scopes
	if scopes == nil {
		scopes = []auth.Scope{}
	}
	writeJSON(w, http.StatusOK, wire.WhoamiResponse{Principal: p.ID, Scopes: scopes, SlackUser: p.SlackUser})
}
