package agent

import (
	"context"
	"net/http"
	"net/url"

	"github.com/hitlbot/hitl"
)

// policyRequest is the body of PUT /api/policy.
type policyRequest struct {
	Rules []hitl.PolicyRule `json:"rules"`
}

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
	var req policyRequest
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
	if !s.servesPolicy(w, r) {
		return
	}
	var req hitl.ApprovalRequest
	if err := decodeBody(w, r, s.cfg.MaxBodyBytes, &req, true); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out, err := s.policies.RequestOperation(r.Context(), req)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
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

var _ hitl.PolicyService = (*Client)(nil)

// Policy implements hitl.PolicyService: GET /api/policy.
func (c *Client) Policy(ctx context.Context) (hitl.Policy, error) {
	var p hitl.Policy
	err := c.do(ctx, http.MethodGet, "/api/policy", nil, nil, &p)
	return p, err
}

// SetPolicy implements hitl.PolicyService: PUT /api/policy.
func (c *Client) SetPolicy(ctx context.Context, rules []hitl.PolicyRule) (hitl.Policy, error) {
	var p hitl.Policy
	err := c.do(ctx, http.MethodPut, "/api/policy", nil, policyRequest{Rules: rules}, &p)
	return p, err
}

// RequestOperation implements hitl.PolicyService: POST /api/approvals.
func (c *Client) RequestOperation(ctx context.Context, req hitl.ApprovalRequest) (hitl.ApprovalOutcome, error) {
	var out hitl.ApprovalOutcome
	err := c.do(ctx, http.MethodPost, "/api/approvals", nil, req, &out)
	return out, err
}

// RevokeRule implements hitl.PolicyService.
func (c *Client) RevokeRule(ctx context.Context, id string) (hitl.PolicyRule, error) {
	var r hitl.PolicyRule
	err := c.do(ctx, http.MethodPost, "/api/policy/rules/"+url.PathEscape(id)+"/revoke", nil, nil, &r)
	return r, err
}
