package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
)

// Hook implements hitl.RunService: POST /api/runs/{id}/hook.
func (c *Client) Hook(ctx context.Context, h steer.SessionHook) (steer.HookStep, error) {
	seg, err := segment("run id", h.RunID)
	if err != nil {
		return steer.HookStep{}, err
	}
	var step steer.HookStep
	err = c.do(ctx, http.MethodPost, "/api/runs/"+seg+"/hook", nil, h, &step)
	return step, err
}

// HoldRun is the wait of a held hook call: WaitRun of run id after
// version (GET /api/runs/{id}/hold), except that when ctx ends mid-wait
// (the hook stopped) the server lets go of the call's held mark.
func (c *Client) HoldRun(ctx context.Context, id string, after uint64) (*hitl.Run, error) {
	seg, err := segment("run id", id)
	if err != nil {
		return nil, err
	}
	var run hitl.Run
	q := url.Values{"wait": {c.longPoll().String()}, "after": {strconv.FormatUint(after, 10)}}
	if err := c.do(ctx, http.MethodGet, "/api/runs/"+seg+"/hold", q, nil, &run); err != nil {
		return nil, err
	}
	return &run, nil
}
