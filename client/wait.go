package client

import (
	"context"
	"errors"
	rand "math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// Wait implements hitl.QuestionService: it long-polls
// GET /api/questions/{id}?wait=60s until the question is settled. When the
// server cannot be reached or fails (unavailable, 5xx) it retries with
// capped exponential backoff until ctx ends, so a waiter outlives a restart
// of the server. On ctx's end it returns the last pending question seen
// (nil if none) and ctx.Err().
func (c *Client) Wait(ctx context.Context, id string) (*hitl.Question, error) {
	if _, err := segment("question id", id); err != nil {
		return nil, err
	}
	var last *hitl.Question
	b := backoff{min: c.minBackoff, max: c.maxBackoff}
	for {
		wait := c.longPoll()
		start := time.Now()
		q, err := c.question(ctx, http.MethodGet, id, "", url.Values{"wait": {wait.String()}})
		switch {
		case ctx.Err() != nil:
			return last, ctx.Err()
		case err == nil:
			last = q
			if !q.Pending() {
				return q, nil
			}
			if time.Since(start) >= wait/2 {
				b.reset()
				continue
			}
			// A pending answer well before the wait elapsed: the server
			// caps waits shorter or is shutting down. Back off rather than
			// spin.
		case fault.Code(err) == fault.ETOOMANYSTREAMS:
			// This principal holds as many waits as it may: wait as told
			// for one of them to end.
			if err := sleepRetryAfter(ctx, err, b.next()); err != nil {
				return last, err
			}
			continue
		case !retryable(err):
			return last, err
		}
		if err := b.sleep(ctx); err != nil {
			return last, err
		}
	}
}

// longPoll is how long one request of Wait asks the server to hold: the
// default, or half the HTTP client's own timeout when that is shorter.
func (c *Client) longPoll() time.Duration {
	if t := c.hc.Timeout; t > 0 && t < c.pollWait+10*time.Second {
		return max(t/2, time.Second)
	}
	return c.pollWait
}

// retryable reports errors worth retrying: the server is unreachable,
// shutting down or failing.
func retryable(err error) bool {
	switch fault.Code(err) {
	case fault.EUNAVAILABLE, fault.EINTERNAL:
		return true
	}
	return false
}

// sleepRetryAfter waits the Retry-After of err (else fallback), or until
// ctx ends.
func sleepRetryAfter(ctx context.Context, err error, fallback time.Duration) error {
	d := fallback
	var he *fault.Error
	if errors.As(err, &he) && he.RetryAfter > 0 {
		d = he.RetryAfter
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff is capped exponential backoff with jitter.
type backoff struct {
	min, max, cur time.Duration
}

func (b *backoff) reset() { b.cur = 0 }

// next returns the next delay: min, 2·min, 4·min … up to max, each
// shortened by up to a quarter at random so that waiters do not retry in
// lockstep.
func (b *backoff) next() time.Duration {
	switch {
	case b.cur == 0:
		b.cur = b.min
	case b.cur < b.max:
		b.cur = min(b.cur*2, b.max)
	}
	return b.cur - time.Duration(rand.Int64N(int64(b.cur/4)+1))
}

// sleep waits for the next delay or ctx's end.
func (b *backoff) sleep(ctx context.Context) error {
	t := time.NewTimer(b.next())
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
