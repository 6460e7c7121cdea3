package agent

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/webhook"
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

// webhookDeliveries is the answer of GET /api/webhooks/deliveries.
type webhookDeliveries struct {
	Deliveries []webhook.Delivery `json:"deliveries"`
	// NextBefore continues the list (before=) when the page was full.
	NextBefore uint64 `json:"nextBefore,omitempty"`
}

func (s *Server) handleWebhookDeliveries(w http.ResponseWriter, r *http.Request) {
	svc := s.webhookService(w, r)
	if svc == nil {
		return
	}
	q := r.URL.Query()
	f := hitl.WebhookFilter{Status: webhook.Status(q.Get("status"))}
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
	out := webhookDeliveries{Deliveries: ds}
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

// Webhooks implements hitl.WebhookService: GET /api/webhooks.
func (c *Client) Webhooks(ctx context.Context) (hitl.WebhookOverview, error) {
	var out hitl.WebhookOverview
	err := c.do(ctx, http.MethodGet, "/api/webhooks", nil, nil, &out)
	return out, err
}

// WebhookDeliveries implements hitl.WebhookService: GET
// /api/webhooks/deliveries.
func (c *Client) WebhookDeliveries(ctx context.Context, f hitl.WebhookFilter) ([]webhook.Delivery, error) {
	v := url.Values{}
	if f.Status != "" {
		v.Set("status", string(f.Status))
	}
	if f.Before != 0 {
		v.Set("before", strconv.FormatUint(f.Before, 10))
	}
	if f.Limit != 0 {
		v.Set("limit", strconv.Itoa(f.Limit))
	}
	var out webhookDeliveries
	err := c.do(ctx, http.MethodGet, "/api/webhooks/deliveries", v, nil, &out)
	return out.Deliveries, err
}

// ReplayWebhook implements hitl.WebhookService.
func (c *Client) ReplayWebhook(ctx context.Context, seq uint64) (webhook.Delivery, error) {
	var out webhook.Delivery
	err := c.do(ctx, http.MethodPost, "/api/webhooks/deliveries/"+strconv.FormatUint(seq, 10)+"/replay", nil, struct{}{}, &out)
	return out, err
}

// PingWebhook implements hitl.WebhookService.
func (c *Client) PingWebhook(ctx context.Context, name string) (hitl.WebhookPingResult, error) {
	var out hitl.WebhookPingResult
	err := c.do(ctx, http.MethodPost, "/api/webhooks/"+url.PathEscape(name)+"/test", nil, struct{}{}, &out)
	return out, err
}

var _ hitl.WebhookService = (*Client)(nil)
