package notify_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hitlbot/hitl/notify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFollow: a follower steps again at once while it makes progress,
// waits for a change when it made none, retries a failed step, and stops
// when its context ends.
func TestFollow(t *testing.T) {
	n := notify.New()
	ctx, cancel := context.WithCancel(context.Background())
	steps := make(chan int, 100)
	results := []struct {
		n   int
		err error
	}{{2, nil}, {0, nil}, {0, errors.New("store down")}, {0, nil}}
	call := 0
	done := make(chan struct{})
	var failures []error
	go func() {
		defer close(done)
		notify.Follow(ctx, n.Changed, func(context.Context) (int, error) {
			i := call
			call++
			steps <- i
			if i < len(results) {
				return results[i].n, results[i].err
			}
			return 0, nil
		}, func(err error) time.Duration {
			failures = append(failures, err)
			return 0
		})
	}()
	next := func() int {
		t.Helper()
		select {
		case i := <-steps:
			return i
		case <-time.After(10 * time.Second):
			require.FailNow(t, "no step")
			return -1
		}
	}
	require.Equal(t, 0, next())
	require.Equal(t, 1, next(), "progress: the next step at once")
	n.Publish("") // no progress at step 1: it waits for a change
	require.Equal(t, 2, next())
	require.Equal(t, 3, next(), "a failed step is retried")
	select {
	case i := <-steps:
		t.Fatalf("step %d ran with no change", i)
	default:
	}
	n.Publish("")
	require.Equal(t, 4, next())
	cancel()
	<-done
	assert.Len(t, failures, 1)
}
