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

// TestFollow drives Follow one step at a time: each step reports to the
// test and returns what the test replies. It checks, at points where the
// follower's next move is determined, that it steps again at once after
// progress or a failure, waits for a change (and does not step) after a
// step that made none, takes the change channel before each step (a
// change made while a step runs wakes the next), and stops when its
// context ends.
func TestFollow(t *testing.T) {
	var w wakes
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	steps := make(chan int)
	replies := make(chan result)
	var failures []error
	done := make(chan struct{})
	go func() {
		defer close(done)
		call := 0
		notify.Follow(ctx, w.changed, func(context.Context) (int, error) {
			steps <- call
			call++
			r := <-replies
			return r.n, r.err
		}, func(err error) time.Duration {
			failures = append(failures, err)
			return 0
		})
	}()
	// step waits for step i; the change channel was taken just before it.
	step := func(i int, what string) {
		t.Helper()
		select {
		case got := <-steps:
			require.Equal(t, i, got)
		case <-time.After(10 * time.Second):
			require.FailNow(t, "no step "+what)
		}
		_, n := w.taken(i)
		require.Equal(t, i+1, n, "the change channel is taken once before each step")
	}
	// atOnce: step i follows step i-1 without a change.
	atOnce := func(i int, what string) {
		t.Helper()
		before, _ := w.taken(i - 1)
		select {
		case got := <-steps:
			require.Equal(t, i, got)
		case before <- struct{}{}:
			require.FailNow(t, "it waited for a change "+what)
		case <-time.After(10 * time.Second):
			require.FailNow(t, "no step "+what)
		}
		_, n := w.taken(i)
		require.Equal(t, i+1, n, "the change channel is taken once before each step")
	}
	// waits: after step i made no progress, the follower waits on the
	// channel it took before step i, and steps only once woken.
	waits := func(i int) {
		t.Helper()
		ch, _ := w.taken(i)
		select {
		case ch <- struct{}{}:
		case got := <-steps:
			require.FailNow(t, "a step ran without a change", "step %d", got)
		case <-time.After(10 * time.Second):
			require.FailNow(t, "the follower neither waits nor steps")
		}
	}

	step(0, "at the start")
	replies <- result{2, nil}
	atOnce(1, "after progress")
	replies <- result{0, nil}
	waits(1)
	step(2, "after a change")
	replies <- result{0, errors.New("store down")}
	atOnce(3, "after a failure (retried after failed's wait)")
	ch3, _ := w.taken(3)
	close(ch3) // a change committed while step 3 runs
	replies <- result{0, nil}
	step(4, "woken by the change made during the step before")
	replies <- result{0, nil}
	waits(4)
	step(5, "after a change")
	replies <- result{0, nil}
	cancel()
	select {
	case <-done:
	case got := <-steps:
		require.FailNow(t, "a step ran after the context ended", "step %d", got)
	case <-time.After(10 * time.Second):
		require.FailNow(t, "Follow did not return when its context ended")
	}
	assert.Len(t, failures, 1, "failed is told of the one failure")
}
