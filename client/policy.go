package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
)

var _ hitl.PolicyService = (*Client)(nil)

// Policy implements hitl.PolicyService: GET /api/policy.
func (c *Client) Policy(ctx context.Context) (hitl.Policy, error) {
	var p hitl.Policy
	err := c.do(ctx, http.MethodGet, "/api/policy", nil, nil, &p)
	return p, err
}

// SetPolicy implements hitl.PolicyService: PUT /api/policy.
func (c *Client) SetPolicy(ctx context.Context, rules []hitl.Rule) (hitl.Policy, error) {
	var p hitl.Policy
	err := c.do(ctx, http.MethodPut, "/api/policy", nil, wire.PolicyRequest{Rules: rules}, &p)
	return p, err
}

// RequestOperation implements hitl.PolicyService: POST /api/approvals.
func (c *Client) RequestOperation(ctx context.Context, req hitl.ApprovalRequest) (hitl.ApprovalOutcome, error) {
	req.IdempotencyKey = c.failoverKey(req.IdempotencyKey)
	var out hitl.ApprovalOutcome
	err := c.do(ctx, http.MethodPost, "/api/approvals", nil, req, &out)
	return out, err
}

// CheckOperation implements hitl.PolicyService: POST /api/policy/check.
func (c *Client) CheckOperation(ctx context.Context, req hitl.ApprovalRequest) (hitl.Decision, error) {
	var d hitl.Decision
	err := c.do(ctx, http.MethodPost, "/api/policy/check", nil, req, &d)
	return d, err
}

// LearnedRules implements hitl.PolicyService: GET /api/policy/rules.
func (c *Client) LearnedRules(ctx context.Context, f hitl.LearnedRuleFilter) (hitl.LearnedRulePage, error) {
	v := url.Values{}
	if f.Agent != "" {
		v.Set("agent", f.Agent)
	}
	if f.Limit > 0 {
		v.Set("limit", strconv.Itoa(f.Limit))
	}
	if f.Cursor != "" {
		v.Set("cursor", f.Cursor)
	}
	var page hitl.LearnedRulePage
	err := c.do(ctx, http.MethodGet, "/api/policy/rules", v, nil, &page)
	return page, err
}

// RevokeRule implements hitl.PolicyService.
func (c *Client) RevokeRule(ctx context.Context, id string) (*hitl.LearnedRule, error) {
	var r hitl.LearnedRule
	if err := c.do(ctx, http.MethodPost, "/api/policy/rules/"+url.PathEscape(id)+"/revoke", nil, nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
