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
	if !s.serves(w, r, s.policies != nil, "approval policy") {
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
	if !s.serves(w, r, s.policies != nil, "approval policy") {
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
	if !s.serves(w, r, s.policies != nil, "approval policy") {
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
	if !s.serves(w, r, s.policies != nil, "approval policy") {
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

// GateResult is how an operation was decided: by the policy alone, or by
// the people it asked.
type GateResult struct {
	Allowed  bool
	TimedOut bool
	Decision hitl.Decision
	// Question is the approval people answered (nil when the policy
	// decided alone); Edited the input they changed before approving.
	Question *hitl.Question
	Edited   string
	// Message is the grant's message or the denial's reason.
	Message string
	By      string
}

// Gate asks the policy about op and, when it says ask, waits for the
// people it names (the Go side of hitl gate, the hooks and the MCP
// permission tool). A timeout denies.
func (c *Client) Gate(ctx context.Context, req hitl.ApprovalRequest) (GateResult, error) {
	out, err := c.RequestOperation(ctx, req)
	if err != nil {
		return GateResult{}, err
	}
	res := GateResult{Decision: out.Decision, Allowed: out.Effect == hitl.EffectAllow}
	if out.Effect != hitl.EffectAsk {
		if out.Effect == hitl.EffectDeny {
			res.Message = "denied by policy rule " + out.Rule
		}
		return res, nil
	}
	q, err := c.Wait(ctx, out.QuestionID)
	if err != nil {
		return GateResult{Decision: out.Decision, Question: q}, err
	}
	if got, rerr := c.Receive(ctx, q.ID); rerr == nil {
		q = got
	}
	res.Question, res.By = q, q.RespondedBy
	switch q.Outcome() {
	case hitl.OutcomeApproved:
		res.Allowed, res.Edited, res.Message = true, q.Response.Edited, q.Response.Text
	case hitl.OutcomeDenied:
		res.Message = q.Response.Text
	case hitl.OutcomeTimedOut, hitl.OutcomeDefaulted:
		res.TimedOut = true
		res.Allowed = q.Outcome() == hitl.OutcomeDefaulted && q.Response.Approved()
	case hitl.OutcomeCancelled:
		return res, &hitl.Error{Code: hitl.ECANCELLED, Message: "the approval " + q.ID + " was cancelled"}
	}
	return res, nil
}
