package api

import (
	"net/http"
	"strconv"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
)

// The operators' webhook API (admins; the root decides): GET
// /api/webhooks (endpoints and their queues), GET
// /api/webhooks/deliveries?status=failed, POST
// /api/webhooks/deliveries/{seq}/replay, POST /api/webhooks/{name}/test.

func (s *Server) webhookService(w http.ResponseWriter, r *http.Request) hitl.WebhookService {
	if s.webhooks == nil {
		writeError(w, r, s.log, fault.Errorf(fault.ENOTFOUND, "webhooks are not served here"))
	}
	return s.webhooks
}

func (s *Server) handleWebhooks(w http.ResponseWriter, r *http.Request) {
	svc := s.webhookService(w, r)
	if svc == nil {
		return
	}
	out, err := svc.Webhooks(r.Context())
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleWebhookDeliveries(w http.ResponseWriter, r *http.Request) {
	svc := s.webhookService(w, r)
	if svc == nil {
		return
	}
	q := r.URL.Query()
	f := hitl.WebhookFilter{Status: hitl.WebhookStatus(q.Get("status"))}
	var err error
	if v := q.Get("before"); v != "" {
		if f.Before, err = strconv.ParseUint(v, 10, 64); err != nil {
			writeError(w, r, s.log, fault.Errorf(fault.EINVALID, "before %q is not a delivery number", v))
			return
		}
	}
	if f.Limit, err = parseLimit(q.Get("limit")); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	ds, err := svc.WebhookDeliveries(r.Context(), f)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out := wire.WebhookDeliveries{Deliveries: ds}
	if len(ds) == f.PageSize() {
		out.NextBefore = ds[len(ds)-1].Seq
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleWebhookReplay(w http.ResponseWriter, r *http.Request) {
	svc := s.webhookService(w, r)
	if svc == nil {
		return
	}
	seq, err := strconv.ParseUint(r.PathValue("seq"), 10, 64)
	if err != nil {
		writeError(w, r, s.log, fault.Errorf(fault.EINVALID, "%q is not a delivery number", r.PathValue("seq")))
		return
	}
	d, err := svc.ReplayWebhook(r.Context(), seq)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusCreated, d)
}

func (s *Server) handleWebhookTest(w http.ResponseWriter, r *http.Request) {
	svc := s.webhookService(w, r)
	if svc == nil {
		return
	}
	out, err := svc.PingWebhook(r.Context(), r.PathValue("name"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
