package notify_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl/notify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wakes is a controlled Notifier's Changed: each call hands out a new,
// unbuffered channel. A test wakes the follower by sending on the channel
// it took; the send completes only when the follower is waiting on it, so
// "it waits for a change" and "it steps without one" are told apart
// without sleeping.
type wakes struct {
	mu    sync.Mutex
	chans []chan struct{}
}

func (w *wakes) changed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := make(chan struct{})
	w.chans = append(w.chans, ch)
	return ch
}

// taken is the i-th channel handed out (nil if none yet), and how many
// were.
func (w *wakes) taken(i int) (chan struct{}, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if i >= len(w.chans) {
		return nil, len(w.chans)
	}
	return w.chans[i], len(w.chans)
}

// result is what a step returns.
type result struct {
	n   int
	err error
}

// follower runs Follow (or FollowTicks) one step at a time: each step
// reports to the test and returns what the test replies.
type follower struct {
	t        *testing.T
	w        wakes
	cancel   context.CancelFunc
	steps    chan int
	replies  chan result
	failures []error // read once done
	done     chan struct{}
}

func startFollower(t *testing.T, follow func(ctx context.Context, changed func() <-chan struct{}, step func(context.Context) (int, error), failed func(error) time.Duration)) *follower {
	ctx, cancel := context.WithCancel(context.Background())
	f := &follower{t: t, cancel: cancel, steps: make(chan int), replies: make(chan result), done: make(chan struct{})}
	t.Cleanup(cancel)
	go func() {
		defer close(f.done)
		call := 0
		follow(ctx, f.w.changed, func(context.Context) (int, error) {
			f.steps <- call
			call++
			r := <-f.replies
			return r.n, r.err
		}, func(err error) time.Duration {
			f.failures = append(f.failures, err)
			return 0
		})
	}()
	return f
}

func (f *follower) reply(n int, err error) { f.replies <- result{n, err} }

// step waits for step i; the change channel was taken just before it.
func (f *follower) step(i int, what string) {
	f.t.Helper()
	select {
	case got := <-f.steps:
		require.Equal(f.t, i, got)
	case <-time.After(10 * time.Second):
		require.FailNow(f.t, "no step "+what)
	}
	_, n := f.w.taken(i)
	require.Equal(f.t, i+1, n, "the change channel is taken once before each step")
}

// atOnce: step i follows step i-1 without a change.
func (f *follower) atOnce(i int, what string) {
	f.t.Helper()
	before, _ := f.w.taken(i - 1)
	select {
	case got := <-f.steps:
		require.Equal(f.t, i, got)
	case before <- struct{}{}:
		require.FailNow(f.t, "it waited for a change "+what)
	case <-time.After(10 * time.Second):
		require.FailNow(f.t, "no step "+what)
	}
	_, n := f.w.taken(i)
	require.Equal(f.t, i+1, n, "the change channel is taken once before each step")
}

// waits: after step i made no progress, the follower waits on the
// channel it took before step i (or on ticks, when given), and steps
// only once woken by it.
func (f *follower) waits(i int, ticks chan time.Time) {
	f.t.Helper()
	ch, _ := f.w.taken(i)
	if ticks == nil {
		select {
		case ch <- struct{}{}:
			return
		case got := <-f.steps:
			require.FailNow(f.t, "a step ran without a change", "step %d", got)
		case <-time.After(10 * time.Second):
			require.FailNow(f.t, "the follower neither waits nor steps")
		}
	}
	select {
	case ticks <- time.Time{}:
	case got := <-f.steps:
		require.FailNow(f.t, "a step ran without a change or a tick", "step %d", got)
	case <-time.After(10 * time.Second):
		require.FailNow(f.t, "the follower neither waits for a tick nor steps")
	}
}

// stop ends the follower's context: it returns without another step.
func (f *follower) stop() {
	f.t.Helper()
	f.cancel()
	select {
	case <-f.done:
	case got := <-f.steps:
		require.FailNow(f.t, "a step ran after the context ended", "step %d", got)
	case <-time.After(10 * time.Second):
		require.FailNow(f.t, "Follow did not return when its context ended")
	}
}

// TestFollow checks, at points where the follower's next move is
// determined, that it steps again at once after progress or a failure,
// waits for a change (and does not step) after a step that made none,
// takes the change channel before each step (a change made while a step
// runs wakes the next), and stops when its context ends.
func TestFollow(t *testing.T) {
	f := startFollower(t, notify.Follow)
	f.step(0, "at the start")
	f.reply(2, nil)
	f.atOnce(1, "after progress")
	f.reply(0, nil)
	f.waits(1, nil)
	f.step(2, "after a change")
	f.reply(0, errors.New("store down"))
	f.atOnce(3, "after a failure (retried after failed's wait)")
	ch3, _ := f.w.taken(3)
	close(ch3) // a change committed while step 3 runs
	f.reply(0, nil)
	f.step(4, "woken by the change made during the step before")
	f.reply(0, nil)
	f.waits(4, nil)
	f.step(5, "after a change")
	f.reply(0, nil)
	f.stop()
	assert.Len(t, f.failures, 1, "failed is told of the one failure")
}

// TestFollowTicks: a follower given ticks also steps at a tick when
// nothing changed, and still at a change.
func TestFollowTicks(t *testing.T) {
	ticks := make(chan time.Time)
	f := startFollower(t, func(ctx context.Context, changed func() <-chan struct{}, step func(context.Context) (int, error), failed func(error) time.Duration) {
		notify.FollowTicks(ctx, changed, ticks, step, failed)
	})
	f.step(0, "at the start")
	f.reply(0, nil)
	f.waits(0, ticks)
	f.step(1, "at a tick")
	f.reply(0, nil)
	f.waits(1, nil)
	f.step(2, "at a change")
	f.reply(1, nil)
	f.atOnce(3, "after progress")
	f.reply(0, nil)
	f.stop()
	assert.Empty(t, f.failures)
}
