package hook

import (
	"context"
	"errors"
	"time"

	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
)

// ErrStillPending is the cause of a wait that gave up while the question
// is still pending (after the longest wait, or before the agent's own
// timeout would cut it off): the question can be picked up later.
var ErrStillPending = errors.New("still pending")

// GaveUp reports whether ctx ended because its wait gave up
// (ErrStillPending), not because the caller went away.
func GaveUp(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrStillPending)
}

// GiveUpAt returns a context that ends with the cause ErrStillPending when
// at fires (an injected timer), and the function that releases it.
func GiveUpAt(ctx context.Context, at <-chan time.Time) (context.Context, context.CancelFunc) {
	gctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-at:
			cancel(ErrStillPending)
		case <-gctx.Done():
		}
	}()
	return gctx, func() { cancel(context.Canceled) }
}

// Release settles a question an agent no longer waits for: it is
// cancelled with reason (so its Slack message says why) and its outcome
// taken, so that its idempotency key asks anew next time. Errors are
// returned for the caller to report; the question may already be settled.
func Release(ctx context.Context, c *client.Client, id, reason string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, err := c.Cancel(ctx, id, reason)
	if _, rerr := c.Receive(ctx, id); err == nil && fault.Code(rerr) != fault.ENOTFOUND {
		err = rerr
	}
	return err
}
