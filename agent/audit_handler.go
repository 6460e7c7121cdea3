package agent

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// The audit trail (admins; the root decides): GET /api/audit?after=&since=&limit=
// pages through the hash-chained records, oldest first; GET
// /api/audit/verify checks the chain.

// AuditPage is the answer of GET /api/audit.
type AuditPage struct {
	Records []*hitl.AuditRecord `json:"records"`
	// NextAfter continues the list (after=) when the page was full.
	NextAfter uint64 `json:"nextAfter,omitempty"`
}

func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) {
	if s.audit == nil {
		writeError(w, r, s.log, fault.Errorf(fault.ENOTFOUND, "the audit trail is not served here"))
		return
	}
	q := r.URL.Query()
	var f hitl.AuditFilter
	var err error
	if v := q.Get("after"); v != "" {
		if f.After, err = strconv.ParseUint(v, 10, 64); err != nil {
			writeError(w, r, s.log, fault.Errorf(fault.EINVALID, "after %q is not a record number", v))
			return
		}
	}
	if v := q.Get("since"); v != "" {
		if f.Since, err = time.Parse(time.RFC3339Nano, v); err != nil {
			writeError(w, r, s.log, fault.Errorf(fault.EINVALID, "since %q is not an RFC 3339 time (2026-11-28T09:00:00Z)", v))
			return
		}
	}
	if f.Limit, err = parseLimit(q.Get("limit")); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	recs, err := s.audit.Records(r.Context(), f)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out := AuditPage{Records: recs}
	if len(recs) == f.PageSize() {
		out.NextAfter = recs[len(recs)-1].Seq
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleAuditVerify(w http.ResponseWriter, r *http.Request) {
	if s.audit == nil {
		writeError(w, r, s.log, fault.Errorf(fault.ENOTFOUND, "the audit trail is not served here"))
		return
	}
	v, err := s.audit.Verify(r.Context())
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

var _ hitl.AuditService = (*Client)(nil)

// Records implements service.AuditService: one page.
func (c *Client) Records(ctx context.Context, f hitl.AuditFilter) ([]*hitl.AuditRecord, error) {
	page, err := c.AuditPage(ctx, f)
	return page.Records, err
}

// AuditPage reads one page of the audit trail and where the next begins
// (0: the page was the last).
func (c *Client) AuditPage(ctx context.Context, f hitl.AuditFilter) (AuditPage, error) {
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
	var out AuditPage
	err := c.do(ctx, http.MethodGet, "/api/audit", v, nil, &out)
	return out, err
}

// Verify implements service.AuditService.
func (c *Client) Verify(ctx context.Context) (hitl.AuditVerdict, error) {
	var out hitl.AuditVerdict
	err := c.do(ctx, http.MethodGet, "/api/audit/verify", nil, nil, &out)
	return out, err
}
