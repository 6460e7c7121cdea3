package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The outbox's behaviour is in internal/storetest (TestOutboxContract);
// these are bbolt's own: its keys and its file.
func TestOutbox(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := store.Open(path)
	require.NoError(t, err)
	require.NoError(t, db.Enqueue(ctx, 10, []hitl.Delivery{
		{Kind: "post", QuestionID: "q1", Target: "C1"}, {Kind: "post", QuestionID: "q1", Target: "U2"},
	}))
	d, err := db.NextDelivery(ctx, "U2")
	require.NoError(t, err)
	rec := &hitl.Delivered{QuestionID: "q1", Target: "U2", Channel: "D9", TS: "1700000000.000100", PostedAt: time.Unix(1700000000, 0).UTC()}
	require.NoError(t, db.Complete(ctx, d, rec))

	t.Run("a target with a NUL byte is refused", func(t *testing.T) {
		err := db.Enqueue(ctx, 11, []hitl.Delivery{{Kind: "post", QuestionID: "q", Target: "C\x00"}})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
	})
	t.Run("outbox survives reopening", func(t *testing.T) {
		require.NoError(t, db.Check())
		require.NoError(t, db.Close())
		db, err = store.Open(path)
		require.NoError(t, err)
		defer db.Close()
		targets, _ := db.Targets(ctx, "", 10)
		assert.Equal(t, []string{"C1"}, targets)
		cur, _ := db.OutboxCursor(ctx)
		assert.Equal(t, uint64(10), cur)
		got, err := db.DeliveredAt(ctx, "D9", "1700000000.000100")
		require.NoError(t, err)
		assert.Equal(t, *rec, got)
		require.NoError(t, db.Check())
	})
}
