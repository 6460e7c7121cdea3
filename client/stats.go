package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/hitlbot/hitl/observe"
)

// Stats implements observe.StatsService over HTTP.
func (c *Client) Stats(ctx context.Context, q observe.StatsQuery) (*observe.Stats, error) {
	v := url.Values{}
	if q.Since != 0 {
		v.Set("since", q.Since.String())
	}
	if q.Run != "" {
		v.Set("run", q.Run)
	}
	var st observe.Stats
	if err := c.do(ctx, http.MethodGet, "/api/stats", v, nil, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

var _ observe.StatsService = (*Client)(nil)
