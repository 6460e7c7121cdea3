package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// Client is the Go SDK: hitl.QuestionService over the HTTP API.
// Errors come back as the *fault.Error the server wrote (code, message and,
// for conflicts, who answered and when), so fault.Code works across the
// wire; a server that cannot be reached gives fault.EUNAVAILABLE. When ctx
// ends, methods return ctx.Err().
//
// The actor is the token's agent name ("api:"+name) or, against a server
// without tokens, "local" or "local:"+user (WithUser).
type Client struct {
	pool       *replicas // the base URLs (see failover.go)
	token      string
	user       string
	hc         *http.Client
	minBackoff time.Duration
	maxBackoff time.Duration
	pollWait   time.Duration
	// rateWait, when set, waits out 429s (see WithRateLimitWait).
	rateWait func(time.Duration) <-chan time.Time
}

var _ hitl.QuestionService = (*Client)(nil)

// With returns a copy of c with opts applied (the same connections).
func (c *Client) With(opts ...ClientOption) *Client {
	cp := *c
	for _, o := range opts {
		o(&cp)
	}
	return &cp
}

// do sends one request and decodes the JSON answer into out. in, when not
// nil, is sent as the JSON body. With WithRateLimitWait, a 429 waits and
// the same request is sent again.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	var b []byte
	if in != nil {
		var err error
		if b, err = json.Marshal(in); err != nil {
			return fault.Errorf(fault.EINVALID, "encoding the request: %v", err)
		}
	}
	suffix := path
	if len(query) > 0 {
		suffix += "?" + query.Encode()
	}
	replay := replayable(method, path, in)
	for {
		err := c.sendAny(ctx, method, suffix, path, b, in != nil, replay, out)
		var he *fault.Error
		if c.rateWait == nil || !errors.As(err, &he) || he.Code != fault.ERATELIMITED {
			return err
		}
		d := max(he.RetryAfter, time.Second)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.rateWait(d):
		}
	}
}

// send sends one request to the replica at base: do's one attempt. A
// replica that is not answering gives a *replicaDown.
func (c *Client) send(ctx context.Context, method, base, suffix, path string, b []byte, hasBody bool, out any) error {
	u := base + suffix
	var body io.Reader
	if hasBody {
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return fault.Errorf(fault.EINVALID, "building the request: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	if hasBody || method != http.MethodGet {
		// Every state-changing request says JSON, body or not: a server
		// without tokens refuses one that does not (a browser's form).
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.user != "" {
		req.Header.Set(wire.UserHeader, c.user)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &replicaDown{err: fault.Errorf(fault.EUNAVAILABLE, "cannot reach hitl at %s: %v", base, err), sent: !unsent(err)}
	}
	defer func() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
	}()
	if resp.StatusCode >= 300 {
		if downStatus(resp.StatusCode) {
			return &replicaDown{err: wire.DecodeError(resp), sent: true}
		}
		return wire.DecodeError(resp)
	}
	if out == nil {
		return nil
	}
	if err := decodeAnswer(resp.Body, out); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &replicaDown{err: fault.Errorf(fault.EUNAVAILABLE, "reading the answer of %s %s: %v", method, path, err), sent: true}
	}
	return nil
}

// Create implements hitl.QuestionService.
func (c *Client) Create(ctx context.Context, runID string, n hitl.NewQuestion) (*hitl.Question, bool, error) {
	if err := steer.ValidateRunID(runID); err != nil {
		return nil, false, err
	}
	n.IdempotencyKey = c.failoverKey(n.IdempotencyKey)
	var resp wire.AskResponse
	if err := c.do(ctx, http.MethodPost, "/api/jobs/"+url.PathEscape(runID)+"/questions", nil, n, &resp); err != nil {
		return nil, false, err
	}
	if resp.Question == nil {
		q, err := c.Question(ctx, resp.QuestionID)
		return q, resp.Created, err
	}
	return resp.Question, resp.Created, nil
}

// Question implements hitl.QuestionService.
func (c *Client) Question(ctx context.Context, id string) (*hitl.Question, error) {
	return c.question(ctx, http.MethodGet, id, "", nil)
}

// Receive implements hitl.QuestionService.
func (c *Client) Receive(ctx context.Context, id string) (*hitl.Question, error) {
	return c.question(ctx, http.MethodPost, id, "/receive", nil)
}

func (c *Client) question(ctx context.Context, method, id, suffix string, query url.Values) (*hitl.Question, error) {
	seg, err := segment("question id", id)
	if err != nil {
		return nil, err
	}
	var resp wire.QuestionResponse
	if err := c.do(ctx, method, "/api/questions/"+seg+suffix, query, nil, &resp); err != nil {
		return nil, err
	}
	if resp.Question == nil {
		return nil, fault.Errorf(fault.EUNAVAILABLE, "the server answered without a question")
	}
	return resp.Question, nil
}

// Answer implements hitl.QuestionService.
func (c *Client) Answer(ctx context.Context, id string, r hitl.Response) (*hitl.Question, error) {
	seg, err := segment("question id", id)
	if err != nil {
		return nil, err
	}
	var resp wire.AnswerResponse
	if err := c.do(ctx, http.MethodPost, "/api/questions/"+seg+"/answer", nil, wire.AnswerRequest{Response: &r}, &resp); err != nil {
		return nil, err
	}
	return resp.Question, nil
}

// Cancel implements hitl.QuestionService.
func (c *Client) Cancel(ctx context.Context, id, reason string) (*hitl.Question, error) {
	seg, err := segment("question id", id)
	if err != nil {
		return nil, err
	}
	var resp wire.SuccessResponse
	if err := c.do(ctx, http.MethodPost, "/api/questions/"+seg+"/cancel", nil, wire.CancelRequest{Reason: reason}, &resp); err != nil {
		return nil, err
	}
	return resp.Question, nil
}

// QuestionPage implements hitl.QuestionService over GET /api/questions
// (status, type, jobId, limit, cursor and ByDeadline as order=deadline;
// the other filters of f are the service's own).
func (c *Client) QuestionPage(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error) {
	query := url.Values{}
	if f.ByDeadline {
		query.Set("order", string(hitl.OrderDeadline))
	}
	for k, v := range map[string]string{"status": string(f.Status), "type": string(f.Type), "jobId": f.RunID, "cursor": f.Cursor} {
		if v != "" {
			query.Set(k, v)
		}
	}
	if f.Limit > 0 {
		query.Set("limit", strconv.Itoa(min(f.Limit, wire.MaxListLimit)))
	}
	var resp wire.QuestionsResponse
	if err := c.do(ctx, http.MethodGet, "/api/questions", query, nil, &resp); err != nil {
		return hitl.QuestionPage{}, err
	}
	return hitl.QuestionPage(resp), nil
}

// RunRecord implements hitl.QuestionService.
func (c *Client) RunRecord(ctx context.Context, id string) (*hitl.Run, error) {
	if err := steer.ValidateRunID(id); err != nil {
		return nil, err
	}
	var run hitl.Run
	if err := c.do(ctx, http.MethodGet, "/api/runs/"+url.PathEscape(id), nil, nil, &run); err != nil {
		return nil, err
	}
	return &run, nil
}

// RunState implements hitl.QuestionService.
func (c *Client) RunState(ctx context.Context, runID string) (*hitl.RunState, error) {
	if err := steer.ValidateRunID(runID); err != nil {
		return nil, err
	}
	var st hitl.RunState
	if err := c.do(ctx, http.MethodGet, "/api/jobs/"+url.PathEscape(runID), nil, nil, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// Health reports whether the service is up and whether Slack is on.
func (c *Client) Health(ctx context.Context) (wire.Health, error) {
	var h wire.Health
	err := c.do(ctx, http.MethodGet, "/healthz", nil, nil, &h)
	return h, err
}

// Defaults of the client.
const (
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 5 * time.Second
	// DefaultPollWait is how long one long-poll request of Wait lasts.
	DefaultPollWait = 60 * time.Second
)

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithHTTPClient uses hc for every request. Its Timeout, if any, should be
// above a minute: Wait's long polls last up to DefaultPollWait (Wait
// shortens them to half of a shorter Timeout).
func WithHTTPClient(hc *http.Client) ClientOption {
	return func(c *Client) {
		if hc != nil {
			c.hc = hc
		}
	}
}

// WithUser names the person or agent behind requests to a server without
// tokens (sent as X-Hitl-User; the actor becomes "local:"+name).
func WithUser(name string) ClientOption {
	return func(c *Client) { c.user = name }
}

// WithRetryBackoff sets the bounds of Wait's exponential backoff between
// retries when the server cannot be reached (defaults 100 ms and 5 s).
func WithRetryBackoff(min, max time.Duration) ClientOption {
	return func(c *Client) {
		if min > 0 {
			c.minBackoff = min
		}
		if max >= c.minBackoff {
			c.maxBackoff = max
		}
	}
}

// WithRateLimitWait makes every request that the server refuses as rate
// limited (429) wait Retry-After (at least a second) on after (time.After
// when nil) and try again, for as long as ctx lets it: a ctx that ends
// first, or whose deadline comes before the retry, returns the refusal
// (or ctx's error). Without it a 429 is returned at once.
func WithRateLimitWait(after func(time.Duration) <-chan time.Time) ClientOption {
	return func(c *Client) {
		if after == nil {
			after = time.After
		}
		c.rateWait = after
	}
}

// WithPollWait sets how long one long-poll request asks the server to
// hold (Wait, WaitRun, HoldRun, a checkpoint while paused; default
// DefaultPollWait).
func WithPollWait(d time.Duration) ClientOption {
	return func(c *Client) {
		if d > 0 {
			c.pollWait = d
		}
	}
}

// NewClient returns a client of the API at baseURL ("http://127.0.0.1:8750")
// that authenticates with token (none when empty). baseURL may list
// several replicas, comma-separated: the client moves to the next when
// one stops answering (see replicas in failover.go).
func NewClient(baseURL, token string, opts ...ClientOption) *Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	c := &Client{
		pool:       newReplicas(baseURL),
		token:      token,
		hc:         &http.Client{Transport: tr},
		minBackoff: DefaultMinBackoff,
		maxBackoff: DefaultMaxBackoff,
		pollWait:   DefaultPollWait,
	}
	for _, o := range opts {
		o(c)
	}
	if c.maxBackoff < c.minBackoff {
		c.maxBackoff = c.minBackoff
	}
	return c
}

// decodeAnswer reads a 2xx answer into out: exactly one JSON object.
// Anything else — an empty body, one cut short, one that is not JSON,
// null, or more after the object — is no answer at all but a transport
// failure (a proxy's page, a server or connection that went away
// mid-answer): the caller retries, never returning out half-filled as a
// result.
func decodeAnswer(r io.Reader, out any) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0:
		return errors.New("the body is empty")
	case b[0] != '{':
		return fmt.Errorf("the body is not a JSON object (%d bytes)", len(b))
	}
	return json.Unmarshal(b, out)
}

// segment escapes one path segment, refusing what would not survive path
// cleaning.
func segment(what, v string) (string, error) {
	if v == "" || v == "." || v == ".." {
		return "", fault.Errorf(fault.EINVALID, "%s %q is invalid", what, v)
	}
	return url.PathEscape(v), nil
}
