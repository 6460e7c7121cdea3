package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOutbox(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := store.Open(path)
	require.NoError(t, err)

	t.Run("enqueue moves the cursor and keeps order per target", func(t *testing.T) {
		require.NoError(t, db.Enqueue(ctx, 7, []hitl.Delivery{
			{Kind: "post", QuestionID: "q1", Target: "C1"},
			{Kind: "post", QuestionID: "q1", Target: "U2"},
		}))
		require.NoError(t, db.Enqueue(ctx, 9, []hitl.Delivery{{Kind: "update", QuestionID: "q1", Target: "C1"}}))
		cur, err := db.OutboxCursor(ctx)
		require.NoError(t, err)
		assert.Equal(t, uint64(9), cur)
		d, err := db.NextDelivery(ctx, "C1")
		require.NoError(t, err)
		assert.Equal(t, hitl.Delivery{Seq: 1, Kind: "post", QuestionID: "q1", Target: "C1"}, d)
	})
	t.Run("targets with work are listed once each, paged", func(t *testing.T) {
		require.NoError(t, db.Enqueue(ctx, 10, []hitl.Delivery{
			{Kind: "post", QuestionID: "q2", Target: "C10"}, {Kind: "post", QuestionID: "q3", Target: "C1"},
		}))
		all, err := db.Targets(ctx, "", 10)
		require.NoError(t, err)
		assert.Equal(t, []string{"C1", "C10", "U2"}, all)
		first, _ := db.Targets(ctx, "", 2)
		assert.Equal(t, []string{"C1", "C10"}, first)
		rest, _ := db.Targets(ctx, "C10", 2)
		assert.Equal(t, []string{"U2"}, rest)
	})
	t.Run("a target that prefixes another has its own queue", func(t *testing.T) {
		d, err := db.NextDelivery(ctx, "C10")
		require.NoError(t, err)
		assert.Equal(t, "q2", d.QuestionID)
		require.NoError(t, db.Complete(ctx, d, nil))
		_, err = db.NextDelivery(ctx, "C10")
		assert.Equal(t, hitl.ENOTFOUND, hitl.ErrorCode(err))
		left, _ := db.Targets(ctx, "", 10)
		assert.Equal(t, []string{"C1", "U2"}, left)
	})
	t.Run("completing a post records the message both ways", func(t *testing.T) {
		d, err := db.NextDelivery(ctx, "U2")
		require.NoError(t, err)
		rec := &hitl.Delivered{QuestionID: "q1", Target: "U2", Channel: "D9", TS: "1700000000.000100", PostedAt: time.Unix(1700000000, 0).UTC()}
		require.NoError(t, db.Complete(ctx, d, rec))
		_, err = db.NextDelivery(ctx, "U2")
		assert.Equal(t, hitl.ENOTFOUND, hitl.ErrorCode(err), "the delivery left the queue")
		got, err := db.DeliveredAt(ctx, "D9", "1700000000.000100")
		require.NoError(t, err)
		assert.Equal(t, *rec, got)
		all, err := db.Delivered(ctx, "q1")
		require.NoError(t, err)
		assert.Equal(t, []hitl.Delivered{*rec}, all)
		none, _ := db.Delivered(ctx, "q")
		assert.Empty(t, none, "prefix of another id does not match")
	})
	t.Run("completing twice records without failing", func(t *testing.T) {
		rec := &hitl.Delivered{QuestionID: "q1", Target: "U2", Channel: "D9", TS: "1700000000.000100"}
		assert.NoError(t, db.Complete(ctx, hitl.Delivery{Seq: 2, Target: "U2"}, rec))
	})
	t.Run("unknown message is not found", func(t *testing.T) {
		_, err := db.DeliveredAt(ctx, "D9", "1.2")
		assert.Equal(t, hitl.ENOTFOUND, hitl.ErrorCode(err))
	})
	t.Run("a target with a NUL byte is refused", func(t *testing.T) {
		err := db.Enqueue(ctx, 11, []hitl.Delivery{{Kind: "post", QuestionID: "q", Target: "C\x00"}})
		assert.Equal(t, hitl.EINVALID, hitl.ErrorCode(err))
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
		_, err = db.DeliveredAt(ctx, "D9", "1700000000.000100")
		assert.NoError(t, err)
		require.NoError(t, db.Check())
	})
}
