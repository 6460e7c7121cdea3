package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A process killed with a delivery handed out may have carried it out:
// the next process hands each target's first delivery queued before it
// opened the file out Resumed, once.
func TestDeliveriesQueuedBeforeOpenAreResumed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := store.Open(path)
	require.NoError(t, err)
	require.NoError(t, db.Enqueue(ctx, 1, []hitl.Delivery{
		{Kind: "post", QuestionID: "q1", Target: "C1"}, {Kind: "post", QuestionID: "q2", Target: "C1"}, {Kind: "post", QuestionID: "q3", Target: "C2"},
	}))
	d, err := db.NextDelivery(ctx, "C1")
	require.NoError(t, err)
	assert.False(t, d.Resumed, "queued by this process")
	require.NoError(t, db.Close()) // q1 was handed out, never completed: the process died

	db, err = store.Open(path)
	require.NoError(t, err)
	defer db.Close()
	next := func(target string) hitl.Delivery {
		t.Helper()
		d, err := db.NextDelivery(ctx, target)
		require.NoError(t, err)
		return d
	}
	d = next("C1")
	assert.Equal(t, "q1", d.QuestionID)
	assert.True(t, d.Resumed, "the head the last process may have started")
	assert.False(t, next("C1").Resumed, "once a target")
	require.NoError(t, db.Complete(ctx, d, nil))
	assert.False(t, next("C1").Resumed, "the deliveries behind the head were never started")
	assert.True(t, next("C2").Resumed, "each target's head once")
	require.NoError(t, db.Enqueue(ctx, 2, []hitl.Delivery{{Kind: "post", QuestionID: "q4", Target: "C3"}}))
	assert.False(t, next("C3").Resumed, "queued by this process")
}
