package store

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Retention beyond the Store contract (internal/storetest, which has how
// Prune takes its batches and what it keeps): what only the bbolt store
// holds (Slack records beside the questions, the file's own consistency).

const retention = 24 * time.Hour

func TestPruneSlackRecords(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	clock := newClock()
	svc := newService(db, clock)
	posted := func(q *hitl.Question, target, channel, ts string) *hitl.Delivered {
		m := &hitl.Delivered{QuestionID: q.ID, Target: target, Channel: channel, TS: ts, PostedAt: clock.Now()}
		require.NoError(t, db.Complete(ctx, hitl.Delivery{}, m))
		return m
	}
	old := ask(t, svc, "run-1", 30)
	posted(old, "C1", "C1", "1700000000.000100")
	posted(old, "U2", "D2", "1700000000.000200")
	_, err := svc.Questions.Answer(as("slack:U2"), old.ID, hitl.Response{Value: "prod"})
	require.NoError(t, err)
	clock.Add(2 * retention)
	kept := ask(t, svc, "run-1", 30)
	keptMsg := posted(kept, "C1", "C1", "1700000100.000100")

	_, err = svc.Questions.Prune(ctx, retention)
	require.NoError(t, err)

	t.Run("a pruned question's Slack messages are gone both ways", func(t *testing.T) {
		msgs, err := db.Delivered(ctx, old.ID)
		require.NoError(t, err)
		assert.Empty(t, msgs)
		for _, at := range [][2]string{{"C1", "1700000000.000100"}, {"D2", "1700000000.000200"}} {
			_, err := db.DeliveredAt(ctx, at[0], at[1])
			assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "a click on message %s in %s finds nothing", at[1], at[0])
		}
	})
	t.Run("a kept question's Slack message stays", func(t *testing.T) {
		got, err := db.DeliveredAt(ctx, "C1", "1700000100.000100")
		require.NoError(t, err)
		assert.Equal(t, *keptMsg, got)
	})
	t.Run("the file checks clean", func(t *testing.T) {
		require.NoError(t, db.Check())
	})
}

// A cancelled context is bbolt's own (the contract does not name it).
func TestPruneCancelled(t *testing.T) {
	t.Run("a cancelled context prunes nothing", func(t *testing.T) {
		db := openTestDB(t)
		clock := newClock()
		svc := newService(db, clock)
		q := ask(t, svc, "run-1", 30)
		_, err := svc.Questions.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "x"})
		require.NoError(t, err)
		clock.Add(2 * retention)
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		_, err = db.Prune(cancelled, clock.Now().Add(-retention), 10)
		require.ErrorIs(t, err, context.Canceled)
		_, err = db.Question(context.Background(), q.ID)
		assert.NoError(t, err)
	})
}
