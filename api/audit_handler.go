package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
)

// The audit trail (admins; the root decides): GET /api/audit?after=&since=&limit=
// pages through the hash-chained records, oldest first; GET
// /api/audit/verify checks the chain.

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
	out := wire.AuditPage{Records: recs}
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
