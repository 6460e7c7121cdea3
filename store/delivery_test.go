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

func TestSlackOutbox(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := store.Open(path)
	require.NoError(t, err)

	t.Run("enqueue moves the cursor and keeps order", func(t *testing.T) {
		require.NoError(t, db.EnqueueSlack(ctx, 7, []hitl.SlackTask{
			{Kind: hitl.SlackPost, QuestionID: "q1", Target: "C1"},
			{Kind: hitl.SlackPost, QuestionID: "q1", Target: "U2"},
		}))
		require.NoError(t, db.EnqueueSlack(ctx, 9, []hitl.SlackTask{{Kind: hitl.SlackUpdate, QuestionID: "q1", Target: "C1"}}))
		cur, err := db.SlackCursor(ctx)
		require.NoError(t, err)
		assert.Equal(t, uint64(9), cur)
		tasks, err := db.SlackTasks(ctx)
		require.NoError(t, err)
		require.Len(t, tasks, 3)
		assert.Equal(t, []uint64{1, 2, 3}, []uint64{tasks[0].Seq, tasks[1].Seq, tasks[2].Seq})
		assert.Equal(t, hitl.SlackUpdate, tasks[2].Kind)
	})
	t.Run("completing a post records the message both ways", func(t *testing.T) {
		tasks, _ := db.SlackTasks(ctx)
		msg := &hitl.SlackMessage{QuestionID: "q1", Target: "U2", Channel: "D9", TS: "1700000000.000100", PostedAt: time.Unix(1700000000, 0).UTC()}
		require.NoError(t, db.CompleteSlackTask(ctx, tasks[1], msg))
		left, _ := db.SlackTasks(ctx)
		assert.Len(t, left, 2)
		got, err := db.SlackMessageAt(ctx, "D9", "1700000000.000100")
		require.NoError(t, err)
		assert.Equal(t, *msg, got)
		all, err := db.SlackMessages(ctx, "q1")
		require.NoError(t, err)
		assert.Equal(t, []hitl.SlackMessage{*msg}, all)
		none, _ := db.SlackMessages(ctx, "q")
		assert.Empty(t, none, "prefix of another id does not match")
	})
	t.Run("unknown message is not found", func(t *testing.T) {
		_, err := db.SlackMessageAt(ctx, "D9", "1.2")
		assert.Equal(t, hitl.ENOTFOUND, hitl.ErrorCode(err))
	})
	t.Run("outbox survives reopening", func(t *testing.T) {
		require.NoError(t, db.Check())
		require.NoError(t, db.Close())
		db, err = store.Open(path)
		require.NoError(t, err)
		defer db.Close()
		tasks, _ := db.SlackTasks(ctx)
		assert.Len(t, tasks, 2)
		cur, _ := db.SlackCursor(ctx)
		assert.Equal(t, uint64(9), cur)
		_, err = db.SlackMessageAt(ctx, "D9", "1700000000.000100")
		assert.NoError(t, err)
	})
}
