package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

var _ hitl.RunService = (*Client)(nil)

// Control implements hitl.RunService: it sends a loop:control REQUEST (a
// new UUID v4 when req.RequestID is empty) and returns the messages it
// produced, ACK then RESULT. A request that was not acknowledged is sent
// again with the same request_id for up to RequestExpiry.
func (c *Client) Control(ctx context.Context, req steer.ControlMessage) ([]steer.ControlMessage, error) {
	if req.RequestID == "" {
		req.RequestID = NewRequestID()
	}
	if req.Timestamp == "" {
		req.Timestamp = steer.Timestamp(time.Now())
	}
	req.Schema, req.Type = steer.ControlSchema, steer.MessageRequest
	var resp wire.ControlResponse
	err := c.Retrying(ctx, time.Now().Add(RequestExpiry), func() error {
		resp = wire.ControlResponse{}
		return c.do(ctx, http.MethodPost, "/api/topics/loop:control", nil, req, &resp)
	})
	if err != nil {
		return nil, err
	}
	return resp.Messages, nil
}

// Retrying calls f until it succeeds, fails with an error that is not
// worth retrying, ctx ends, or deadline passes, waiting with capped
// exponential backoff between calls while the service cannot be reached
// or fails (a restart, an outage, a failover). It is Control's retry, for
// the calls that go with a control request (the CLI's look-up of the run
// a handle names), so that they wait out an outage as long as the
// request itself does (RequestExpiry). It returns f's last error.
func (c *Client) Retrying(ctx context.Context, deadline time.Time, f func() error) error {
	b := backoff{min: c.minBackoff, max: c.maxBackoff}
	for {
		err := f()
		if err == nil || ctx.Err() != nil || !retryable(err) || time.Now().After(deadline) {
			return err
		}
		if err := b.sleep(ctx); err != nil {
			return err
		}
	}
}

// Publish implements hitl.RunService: POST /api/topics/loop:current.
func (c *Client) Publish(ctx context.Context, e steer.StateEvent) (hitl.Checkpoint, error) {
	if e.Schema == 0 {
		e.Schema = steer.StateSchema
	}
	var cp hitl.Checkpoint
	err := c.do(ctx, http.MethodPost, "/api/topics/loop:current", nil, e, &cp)
	return cp, err
}

// Checkpoint implements hitl.RunService: one POST /api/runs/{id}/checkpoint
// reporting the top of e's stack; while the run is paused the server holds
// the call for up to a long poll and answers paused if it still is.
func (c *Client) Checkpoint(ctx context.Context, e steer.StateEvent) (hitl.Checkpoint, error) {
	req := wire.CheckpointRequest{}
	if len(e.Stack) > 0 {
		top := e.Stack[0]
		req = wire.CheckpointRequest{Mode: top.Mode, Iter: top.Iter, Max: top.Max, Model: top.Model}
	}
	return c.checkpoint(ctx, e.RunID, req)
}

// Woken implements hitl.RunService. Over HTTP the server holds a paused
// checkpoint itself and answers it once woken (without a commit when the
// report has nothing to record): a caller that held one with WaitRun
// checkpoints again, and the server answers as it would have.
func (c *Client) Woken(ctx context.Context, e steer.StateEvent, _ *hitl.Run) (hitl.Checkpoint, error) {
	return c.Checkpoint(ctx, e)
}

// Report is one checkpoint call with everything a loop reports (the
// shell's hitl checkpoint): while the run is paused the server holds it
// for up to a long poll, and it answers paused if it still is.
func (c *Client) Report(ctx context.Context, run string, req wire.CheckpointRequest) (hitl.Checkpoint, error) {
	return c.checkpoint(ctx, run, req)
}

func (c *Client) checkpoint(ctx context.Context, run string, req wire.CheckpointRequest) (hitl.Checkpoint, error) {
	seg, err := segment("run id", run)
	if err != nil {
		return hitl.Checkpoint{}, err
	}
	var cp hitl.Checkpoint
	err = c.do(ctx, http.MethodPost, "/api/runs/"+seg+"/checkpoint", url.Values{"wait": {c.longPoll().String()}}, req, &cp)
	return cp, err
}

// WaitRun implements hitl.RunService: GET /api/runs/{id}?wait=&after=.
func (c *Client) WaitRun(ctx context.Context, id string, after uint64) (*hitl.Run, error) {
	seg, err := segment("run id", id)
	if err != nil {
		return nil, err
	}
	var run hitl.Run
	q := url.Values{"wait": {c.longPoll().String()}, "after": {strconv.FormatUint(after, 10)}}
	if err := c.do(ctx, http.MethodGet, "/api/runs/"+seg, q, nil, &run); err != nil {
		return nil, err
	}
	return &run, nil
}

// SetThreshold implements hitl.RunService: POST /api/jobs/{id}.
func (c *Client) SetThreshold(ctx context.Context, id string, n *int) (*hitl.Run, error) {
	seg, err := segment("run id", id)
	if err != nil {
		return nil, err
	}
	var run hitl.Run
	if err := c.do(ctx, http.MethodPost, "/api/jobs/"+seg, nil, wire.ThresholdRequest{InteractionThreshold: n}, &run); err != nil {
		return nil, err
	}
	return &run, nil
}

// Runs implements hitl.RunService: GET /api/runs.
func (c *Client) Runs(ctx context.Context, active bool, limit int, cursor string) (hitl.RunPage, error) {
	q := url.Values{}
	if !active {
		q.Set("all", "true")
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(min(limit, hitl.MaxPageSize)))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var page wire.RunsResponse
	err := c.do(ctx, http.MethodGet, "/api/runs", q, nil, &page)
	return hitl.RunPage(page), err
}

// RunsByPrefix implements hitl.RunService: GET /api/runs?prefix=.
func (c *Client) RunsByPrefix(ctx context.Context, prefix string, limit int) ([]*hitl.Run, error) {
	q := url.Values{"prefix": {prefix}, "limit": {strconv.Itoa(max(1, min(limit, hitl.MaxPageSize)))}}
	var page wire.RunsResponse
	if err := c.do(ctx, http.MethodGet, "/api/runs", q, nil, &page); err != nil {
		return nil, err
	}
	return page.Runs, nil
}

// ThresholdInstruction is the asking instruction (docs/protocol.md#run-state-and-the-interaction-threshold) that applies
// to run: its own interaction threshold, else the service's default, else
// the text for no threshold. hitl prompt prints it; the MCP ask tool
// carries it in its description.
func (c *Client) ThresholdInstruction(ctx context.Context, run string) (string, error) {
	var t *int
	if run != "" {
		r, err := c.RunRecord(ctx, run)
		if err != nil && fault.Code(err) != fault.ENOTFOUND {
			return "", err
		}
		if r != nil {
			t = r.Control.Threshold
		}
	}
	if t == nil {
		h, err := c.Health(ctx)
		if err != nil {
			return "", err
		}
		t = h.InteractionThreshold
	}
	if t == nil {
		return hitl.UnsetInstruction, nil
	}
	return hitl.ThresholdInstruction(*t), nil
}

// RequestExpiry is how long Control retries a REQUEST that was not
// acknowledged (no answer, or the service unreachable), with the same
// request_id, so the service carries it out at most once (docs/protocol.md#steering).
const RequestExpiry = 30 * time.Second

// NewRequestID returns a UUID v4 for a REQUEST.
func NewRequestID() string { return uuid.NewString() }
