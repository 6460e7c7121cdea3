package notify

import (
	"context"
	"time"
)

// Follow runs step until ctx ends: again at once while it makes progress
// (n > 0), else once changed's channel closes. A step that fails is
// retried after failed(err) (nothing when it returns 0 or less but ctx's
// end). changed is taken before each step, so a change committed while
// the step runs wakes the next one (a Notifier never loses a wake-up).
// This is how a reader follows the durable event log: the Slack outbox,
// the metrics.
func Follow(ctx context.Context, changed func() <-chan struct{}, step func(context.Context) (int, error), failed func(error) time.Duration) {
	FollowTicks(ctx, changed, nil, step, failed)
}

// FollowTicks is Follow for a reader whose work also comes due with time
// (the mailer: retries after backoff, claims that ran out): a step that
// made no progress waits for a change or the next tick of ticks (nil:
// never), whichever comes first.
func FollowTicks(ctx context.Context, changed func() <-chan struct{}, ticks <-chan time.Time, step func(context.Context) (int, error), failed func(error) time.Duration) {
	for ctx.Err() == nil {
		ch := changed()
		n, err := step(ctx)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			t := time.NewTimer(max(failed(err), 0))
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
		case n > 0:
		default:
			select {
			case <-ch:
			case <-ticks:
			case <-ctx.Done():
				return
			}
		}
	}
}
