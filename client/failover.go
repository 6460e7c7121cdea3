package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// URLs are the base URLs of the client, in order.
func (c *Client) URLs() []string { return append([]string(nil), c.pool.urls...) }

// failoverKey is the idempotency key a create gets when the client has
// several replicas and the caller gave none, so that it can be sent again
// at the next replica without asking twice.
func (c *Client) failoverKey(key string) string {
	if key != "" || len(c.pool.urls) < 2 {
		return key
	}
	return "failover:" + uuid.NewString()
}

// sendAny sends one request to the replica in use and, when it is not
// answering, to the next ones (each once) as far as the request may be
// repeated. The error is the last replica's, unwrapped.
func (c *Client) sendAny(ctx context.Context, method, suffix, path string, b []byte, hasBody, replay bool, out any) error {
	n := len(c.pool.urls)
	start := c.pool.current()
	var err error
	for i := range n {
		at := (start + i) % n
		err = c.send(ctx, method, c.pool.urls[at], suffix, path, b, hasBody, out)
		var down *replicaDown
		if !errors.As(err, &down) {
			return err
		}
		err = down.err
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.pool.failed(at)
		if down.sent && !replay {
			break
		}
	}
	return err
}

// replicas are the URLs a client may use, in order, and the one it uses
// now. A client made with several URLs ("http://a:7070,http://b:7070", as
// HITL_URL may list them) sticks to one replica until it stops answering,
// then moves to the next; copies made by With share the choice.
//
// What is sent again at the next replica, within the same call:
//   - any request that never reached the failed replica (its connection
//     was refused);
//   - requests that are safe to repeat: reads and long polls (GET; so a
//     Wait, WaitRun or Await in progress carries on at the next replica),
//     creates that carry an idempotency key (questions, approvals; Create
//     and RequestOperation give one to a request without, when there are
//     several replicas), control requests (their request_id is
//     deduplicated for 5 minutes), checkpoints (a report of the same
//     iteration; a paused loop's held checkpoint carries on) and taking an
//     outcome (receive).
//
// Other writes (answer, cancel, publish, policy changes, revoke, set
// threshold) that may have reached the replica before it failed are not
// repeated: the call returns fault.EUNAVAILABLE, and the next call goes to
// the next replica.
type replicas struct {
	urls []string
	cur  atomic.Int64
}

// current is the index of the replica in use.
func (r *replicas) current() int { return int(r.cur.Load()) }

// failed moves past replica i, unless another call already has.
func (r *replicas) failed(i int) {
	r.cur.CompareAndSwap(int64(i), int64((i+1)%len(r.urls)))
}

// newReplicas parses a comma-separated list of base URLs.
func newReplicas(list string) *replicas {
	r := &replicas{}
	for _, u := range strings.Split(list, ",") {
		if u = strings.TrimRight(strings.TrimSpace(u), "/"); u != "" {
			r.urls = append(r.urls, u)
		}
	}
	if len(r.urls) == 0 {
		r.urls = []string{""}
	}
	return r
}

// replicaDown is a failure of one replica (its connection refused or cut,
// or a 502, 503 or 504): the call may go on at the next one. sent says
// the request may have reached it.
type replicaDown struct {
	err  *fault.Error
	sent bool
}

func (e *replicaDown) Error() string { return e.err.Error() }

func (e *replicaDown) Unwrap() error { return e.err }

// downStatus reports the statuses of a replica that is not answering (a
// proxy in front of it says so, or it is shutting down).
func downStatus(status int) bool {
	switch status {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// unsent reports a transport error that happened before the request
// could be sent: the connection was never made.
func unsent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// replayable reports whether a request may be sent again at another
// replica after it may have reached a failed one (see replicas).
func replayable(method, path string, in any) bool {
	if method == http.MethodGet {
		return true
	}
	switch v := in.(type) {
	case hitl.NewQuestion:
		return v.IdempotencyKey != ""
	case hitl.ApprovalRequest:
		return v.IdempotencyKey != ""
	case steer.ControlMessage:
		return v.RequestID != ""
	}
	return strings.HasSuffix(path, "/receive") || strings.HasSuffix(path, "/checkpoint")
}
