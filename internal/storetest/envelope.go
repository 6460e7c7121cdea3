package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runEnvelopes is the contract of SeeEnvelope.
func runEnvelopes(t *testing.T, open func(t *testing.T) hitl.EnvelopeStore) {
	t.Run("an envelope is seen once within the window", func(t *testing.T) { testEnvelopeOnce(t, open(t)) })
	t.Run("an envelope older than the window is new again", func(t *testing.T) { testEnvelopeExpires(t, open(t)) })
	t.Run("any id seen makes the envelope seen, and the others are recorded", func(t *testing.T) { testEnvelopeIDs(t, open(t)) })
	t.Run("of concurrent calls naming one id, exactly one is first", func(t *testing.T) { testEnvelopeConcurrent(t, open(t)) })
	t.Run("expired records are pruned as new ones come", func(t *testing.T) { testEnvelopePrune(t, open(t)) })
}

const window = hitl.EnvelopeWindow

func see(t *testing.T, st hitl.EnvelopeStore, at time.Time, ids ...string) bool {
	t.Helper()
	seen, err := st.SeeEnvelope(context.Background(), at, window, ids...)
	require.NoError(t, err)
	return seen
}

func testEnvelopeOnce(t *testing.T, st hitl.EnvelopeStore) {
	assert.False(t, see(t, st, t0, "env:1"), "first delivery")
	assert.True(t, see(t, st, t0.Add(time.Second), "env:1"), "redelivered a second later")
	assert.True(t, see(t, st, t0.Add(window-time.Second), "env:1"), "redelivered just inside the window")
	assert.False(t, see(t, st, t0.Add(time.Second), "env:2"), "another envelope")
	assert.False(t, see(t, st, t0, "", ""), "no ids: nothing to have seen")
}

func testEnvelopeExpires(t *testing.T, st hitl.EnvelopeStore) {
	assert.False(t, see(t, st, t0, "env:1"))
	assert.False(t, see(t, st, t0.Add(window), "env:1"), "a record exactly window old no longer counts")
	assert.True(t, see(t, st, t0.Add(window+time.Second), "env:1"), "the replacing record counts from its own time")
}

func testEnvelopeIDs(t *testing.T, st hitl.EnvelopeStore) {
	assert.False(t, see(t, st, t0, "env:1", "evt:A"))
	assert.True(t, see(t, st, t0.Add(time.Second), "env:2", "evt:A"), "Slack's retry of event A comes in a new envelope")
	assert.True(t, see(t, st, t0.Add(2*time.Second), "env:2"), "the retry's envelope was recorded too")
	assert.False(t, see(t, st, t0.Add(2*time.Second), "env:3", "evt:B", "evt:B"), "an id named twice in one call is still new")
}

func testEnvelopeConcurrent(t *testing.T, st hitl.EnvelopeStore) {
	for round := range 5 {
		ids := []string{fmt.Sprintf("env:%d", round), fmt.Sprintf("evt:%d", round)}
		var first atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mine := ids
				if i%2 == 1 {
					mine = []string{ids[1], ids[0]} // another order: no deadlock either
				}
				seen, err := st.SeeEnvelope(context.Background(), t0, window, mine...)
				if err != nil {
					errs <- err
					return
				}
				if !seen {
					first.Add(1)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		assert.Equal(t, int32(1), first.Load(), "round %d: exactly one call is first", round)
	}
}

func testEnvelopePrune(t *testing.T, st hitl.EnvelopeStore) {
	for i := range 20 {
		require.False(t, see(t, st, t0, fmt.Sprintf("old:%d", i)))
	}
	later := t0.Add(window + time.Minute)
	// Each new id prunes up to EnvelopePrune expired records: five new
	// ones clear the twenty old ones.
	for i := range 20 / hitl.EnvelopePrune {
		require.False(t, see(t, st, later, fmt.Sprintf("new:%d", i)))
	}
	// An old id is new again whether or not it was pruned, so what tells
	// pruning apart is a record's time: an old record kept would make a
	// call at t0 (a clock set back) see it.
	for i := range 20 {
		assert.False(t, see(t, st, t0.Add(-window/2), fmt.Sprintf("old:%d", i)), "old:%d was pruned", i)
	}
}
