package client

import (
	"context"
	"net/http"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
)

var _ hitl.ReassignService = (*Client)(nil)

// Reassign implements service.ReassignService over POST
// /api/questions/{id}/reassign.
func (c *Client) Reassign(ctx context.Context, id string, to []string) (*hitl.Question, error) {
	seg, err := segment("question id", id)
	if err != nil {
		return nil, err
	}
	var resp wire.SuccessResponse
	if err := c.do(ctx, http.MethodPost, "/api/questions/"+seg+"/reassign", nil, wire.ReassignRequest{To: to}, &resp); err != nil {
		return nil, err
	}
	return resp.Question, nil
}
