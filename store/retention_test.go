package store

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Retention beyond the Store contract (internal/storetest): what only the
// bbolt store holds (Slack records, the file's own consistency) and how
// Prune takes its batches.

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
	_, err := svc.Answer(as("slack:U2"), old.ID, hitl.Response{Value: "prod"})
	require.NoError(t, err)
	clock.Add(2 * retention)
	kept := ask(t, svc, "run-1", 30)
	keptMsg := posted(kept, "C1", "C1", "1700000100.000100")

	_, err = svc.Prune(ctx, retention)
	require.NoError(t, err)

	t.Run("a pruned question's Slack messages are gone both ways", func(t *testing.T) {
		msgs, err := db.Delivered(ctx, old.ID)
		require.NoError(t, err)
		assert.Empty(t, msgs)
		for _, at := range [][2]string{{"C1", "1700000000.000100"}, {"D2", "1700000000.000200"}} {
			_, err := db.DeliveredAt(ctx, at[0], at[1])
			assert.Equal(t, hitl.ENOTFOUND, hitl.ErrorCode(err), "a click on message %s in %s finds nothing", at[1], at[0])
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

func TestPruneBatches(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	clock := newClock()
	svc := newService(db, clock)
	var settled []string
	for i := range 5 {
		q := ask(t, svc, "run-1", 30)
		if i%2 == 0 {
			_, err := svc.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "x"})
			require.NoError(t, err)
		} else {
			_, err := svc.Cancel(as("api:agent"), q.ID, "not needed")
			require.NoError(t, err)
		}
		settled = append(settled, q.ID)
		clock.Add(time.Minute)
	}
	pending := ask(t, svc, "run-1", 24*60)
	clock.Add(2 * retention)
	before := clock.Now().Add(-retention)

	t.Run("a batch takes the longest-settled questions first, up to its limit", func(t *testing.T) {
		n, err := db.Prune(ctx, before, 2)
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		for i, id := range settled {
			_, err := db.Question(ctx, id)
			if i < 2 {
				assert.Equal(t, hitl.ENOTFOUND, hitl.ErrorCode(err), "question %d is pruned", i)
			} else {
				assert.NoError(t, err, "question %d waits for the next batch", i)
			}
		}
		require.NoError(t, db.Check())
	})
	t.Run("a cancelled context prunes nothing", func(t *testing.T) {
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := db.Prune(cancelled, before, 10)
		require.ErrorIs(t, err, context.Canceled)
		_, err = db.Question(ctx, settled[2])
		assert.NoError(t, err)
	})
	t.Run("the next batches take the rest; pending questions stay", func(t *testing.T) {
		for batches := 1; ; batches++ {
			n, err := db.Prune(ctx, before, 2)
			require.NoError(t, err)
			if n < 2 {
				break
			}
			require.Less(t, batches, 10, "pruning ends")
		}
		for _, id := range settled {
			_, err := db.Question(ctx, id)
			assert.Equal(t, hitl.ENOTFOUND, hitl.ErrorCode(err))
		}
		evs, err := db.Events(ctx, 0, 0)
		require.NoError(t, err)
		assert.Empty(t, evs, "every event is older than retention")
		counts := map[hitl.Status]int{}
		for _, st := range []hitl.Status{hitl.StatusPending, hitl.StatusAnswered, hitl.StatusCancelled, hitl.StatusTimeout} {
			counts[st], _ = db.CountQuestions(ctx, st)
		}
		assert.Equal(t, map[hitl.Status]int{hitl.StatusPending: 1, hitl.StatusAnswered: 0, hitl.StatusCancelled: 0, hitl.StatusTimeout: 0}, counts)
		got, err := db.Question(ctx, pending.ID)
		require.NoError(t, err)
		assert.True(t, got.Pending(), "pending however old")
		run, err := db.Run(ctx, "run-1")
		require.NoError(t, err)
		assert.Equal(t, 1, run.Questions)
		assert.Equal(t, 1, run.Pending)
	})
}

func TestPruneKeeps(t *testing.T) {
	ctx := context.Background()

	t.Run("a running run keeps its record when its last question goes", func(t *testing.T) {
		db := openTestDB(t)
		clock := newClock()
		svc := newService(db, clock)
		q := ask(t, svc, "run-live", 30)
		_, err := svc.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "x"})
		require.NoError(t, err)
		_, err = db.UpdateRun(ctx, "run-live", func(r *hitl.Run) (hitl.RunUpdate, error) {
			r.Control.Status = hitl.RunRunning
			return hitl.RunUpdate{Run: r}, nil
		})
		require.NoError(t, err)
		clock.Add(2 * retention)
		_, err = svc.Prune(ctx, retention)
		require.NoError(t, err)

		_, err = db.Question(ctx, q.ID)
		assert.Equal(t, hitl.ENOTFOUND, hitl.ErrorCode(err))
		run, err := db.Run(ctx, "run-live")
		require.NoError(t, err)
		assert.Equal(t, hitl.RunRunning, run.Control.Status)
		assert.Zero(t, run.Questions)
		page, err := db.Runs(ctx, true, 0, "")
		require.NoError(t, err)
		require.Len(t, page.Runs, 1, "still listed as active")
	})
	t.Run("a pruned question's idempotency key asks anew", func(t *testing.T) {
		db := openTestDB(t)
		clock := newClock()
		svc := newService(db, clock)
		n := hitl.NewQuestion{Question: "Which region?", IdempotencyKey: "region"}
		q, created, err := svc.Create(as("api:agent"), "run-1", n)
		require.NoError(t, err)
		require.True(t, created)
		_, err = svc.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "eu"})
		require.NoError(t, err)
		again, created, err := svc.Create(as("api:agent"), "run-1", n)
		require.NoError(t, err)
		require.False(t, created, "within retention the key finds the answered question")
		assert.Equal(t, q.ID, again.ID)

		clock.Add(2 * retention)
		_, err = svc.Prune(ctx, retention)
		require.NoError(t, err)
		fresh, created, err := svc.Create(as("api:agent"), "run-1", n)
		require.NoError(t, err)
		assert.True(t, created, "the key no longer points at a deleted question")
		assert.NotEqual(t, q.ID, fresh.ID)
	})
	t.Run("a sensitive answer never received is pruned with its question", func(t *testing.T) {
		db := openTestDB(t)
		clock := newClock()
		svc := newService(db, clock)
		q, _, err := svc.Create(as("api:agent"), "run-1", hitl.NewQuestion{Question: "API key?", Sensitive: true})
		require.NoError(t, err)
		_, err = svc.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "hunter2"})
		require.NoError(t, err)
		clock.Add(2 * retention)
		_, err = svc.Prune(ctx, retention)
		require.NoError(t, err)
		sealed, err := db.SealedQuestions(ctx)
		require.NoError(t, err)
		assert.Empty(t, sealed, "a restart has nothing to reopen")
	})
}
