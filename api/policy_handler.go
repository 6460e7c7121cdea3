package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
)

// handlePolicy serves GET /api/policy: the effective policy (rules,
// learned rules, the default).
func (s *Server) handlePolicy(w http.ResponseWriter, r *http.Request) {
	if !s.servesPolicy(w, r) {
		return
	}
	p, err := s.policies.Policy(r.Context())
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// handleSetPolicy serves PUT /api/policy (admin scope).
func (s *Server) handleSetPolicy(w http.ResponseWriter, r *http.Request) {
	if !s.servesPolicy(w, r) {
		return
	}
	var req wire.PolicyRequest
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &req, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	p, err := s.policies.SetPolicy(r.Context(), req.Rules)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// handleApprovals serves POST /api/approvals: the policy decides at once
// (allow, deny, or ask with the question to wait on). The agent is the
// token, never the body.
func (s *Server) handleApprovals(w http.ResponseWriter, r *http.Request) {
	serveOperation(s, w, r, s.policies.RequestOperation)
}

// handleCheck serves POST /api/policy/check: what POST /api/approvals
// would decide, creating nothing (hitl policy check).
func (s *Server) handleCheck(w http.ResponseWriter, r *http.Request) {
	serveOperation(s, w, r, s.policies.CheckOperation)
}

// serveOperation reads an ApprovalRequest body, hands it to decide and
// writes what it returns.
func serveOperation[T any](s *Server, w http.ResponseWriter, r *http.Request, decide func(context.Context, hitl.ApprovalRequest) (T, error)) {
	if !s.servesPolicy(w, r) {
		return
	}
	var req hitl.ApprovalRequest
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &req, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out, err := decide(r.Context(), req)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// handleLearnedRules serves GET /api/policy/rules?agent=&limit=&cursor=:
// a page of learned rules.
func (s *Server) handleLearnedRules(w http.ResponseWriter, r *http.Request) {
	if !s.servesPolicy(w, r) {
		return
	}
	q := r.URL.Query()
	f := hitl.LearnedRuleFilter{Agent: q.Get("agent"), Cursor: q.Get("cursor")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, r, s.log, fault.Errorf(fault.EINVALID, "limit %q is not a number of rules", v))
			return
		}
		f.Limit = n
	}
	page, err := s.policies.LearnedRules(r.Context(), f)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

// handleRevoke serves POST /api/policy/rules/{id}/revoke.
func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	if !s.servesPolicy(w, r) {
		return
	}
	rule, err := s.policies.RevokeRule(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, rule)
}
