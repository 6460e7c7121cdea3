package client

import (
	"context"
	"net/http"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/auth"
)

// Whoami returns the principal the client acts as (GET /api/whoami): its
// id, scopes and Slack user.
func (c *Client) Whoami(ctx context.Context) (auth.Principal, error) {
	var out wire.WhoamiResponse
	if err := c.do(ctx, http.MethodGet, "/api/whoami", nil, nil, &out); err != nil {
		return auth.Principal{}, err
	}
	return auth.Principal{ID: out.Principal, Scopes: out.Scopes, SlackUser: out.SlackUser}, nil
}

// DefaultRun returns the client's own run called name: name@PRINCIPAL
// (hitl.DefaultRunID), a run id no other principal can start first.
func (c *Client) DefaultRun(ctx context.Context, name string) (string, error) {
	p, err := c.Whoami(ctx)
	if err != nil {
		return "", err
	}
	return hitl.DefaultRunID(name, p), nil
}
