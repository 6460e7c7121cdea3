package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
)

// Webhooks implements hitl.WebhookService: GET /api/webhooks.
func (c *Client) Webhooks(ctx context.Context) (hitl.WebhookOverview, error) {
	var out hitl.WebhookOverview
	err := c.do(ctx, http.MethodGet, "/api/webhooks", nil, nil, &out)
	return out, err
}

// WebhookDeliveries implements hitl.WebhookService: GET
// /api/webhooks/deliveries.
func (c *Client) WebhookDeliveries(ctx context.Context, f hitl.WebhookFilter) ([]hitl.WebhookDelivery, error) {
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
	var out wire.WebhookDeliveries
	err := c.do(ctx, http.MethodGet, "/api/webhooks/deliveries", v, nil, &out)
	return out.Deliveries, err
}

// ReplayWebhook implements hitl.WebhookService.
func (c *Client) ReplayWebhook(ctx context.Context, seq uint64) (hitl.WebhookDelivery, error) {
	var out hitl.WebhookDelivery
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
