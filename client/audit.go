package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
)

var _ hitl.AuditService = (*Client)(nil)

// Records implements service.AuditService: one page.
func (c *Client) Records(ctx context.Context, f hitl.AuditFilter) ([]*hitl.AuditRecord, error) {
	page, err := c.AuditPage(ctx, f)
	return page.Records, err
}

// AuditPage reads one page of the audit trail and where the next begins
// (0: the page was the last).
func (c *Client) AuditPage(ctx context.Context, f hitl.AuditFilter) (wire.AuditPage, error) {
	v := url.Values{}
	if f.After != 0 {
		v.Set("after", strconv.FormatUint(f.After, 10))
	}
	if !f.Since.IsZero() {
		v.Set("since", f.Since.UTC().Format(time.RFC3339Nano))
	}
	if f.Limit != 0 {
		v.Set("limit", strconv.Itoa(f.Limit))
	}
	var out wire.AuditPage
	err := c.do(ctx, http.MethodGet, "/api/audit", v, nil, &out)
	return out, err
}

// Verify implements service.AuditService.
func (c *Client) Verify(ctx context.Context) (hitl.AuditVerdict, error) {
	var out hitl.AuditVerdict
	err := c.do(ctx, http.MethodGet, "/api/audit/verify", nil, nil, &out)
	return out, err
}
