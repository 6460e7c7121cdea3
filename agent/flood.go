package agent

import (
	"context"
	"net/http"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/service"
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
func (s *Server) throttled(w http.ResponseWriter, r *http.Request, l service.Limit) bool {
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
	return s.serves(w, r, s.policies != nil, "approval policy") && s.throttled(w, r, service.LimitPolicy)
}

// whoamiResponse answers GET /api/whoami.
type whoamiResponse struct {
	Principal string       `json:"principal"`
	Scopes    []auth.Scope `json:"scopes"`
	SlackUser string       `json:"slackUser,omitempty"`
}

// handleWhoami serves GET /api/whoami: the principal the request acts as,
// so that a client can name its own runs (hitl.DefaultRunID).
func (s *Server) handleWhoami(w http.ResponseWriter, r *http.Request) {
	p := auth.PrincipalFrom(r.Context())
	scopes := p.Scopes
	if scopes == nil {
		scopes = []auth.Scope{}
	}
	writeJSON(w, http.StatusOK, whoamiResponse{Principal: p.ID, Scopes: scopes, SlackUser: p.SlackUser})
}

// Whoami returns the principal the client acts as (GET /api/whoami): its
// id, scopes and Slack user.
func (c *Client) Whoami(ctx context.Context) (auth.Principal, error) {
	var out whoamiResponse
	if err := c.do(ctx, http.MethodGet, "/api/whoami", nil, nil, &out); err != nil {
		return auth.Principal{}, err
	}
	return auth.Principal{ID: out.Principal, Scopes: out.Scopes, SlackUser: out.SlackUser}, nil
}

// DefaultRun returns the client's own run called name: name@PRINCIPAL
// (hitl.DefaultRunID), a run id no other principal can start first.
func (c *Client) DefaultRun(ctx context.Context, name string) (string, error) {
	p, err := c.Whoami(ctx)
	if err != nil {
		return "", err
	}
	return hitl.DefaultRunID(name, p), nil
}
