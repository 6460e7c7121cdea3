package store

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/hitlbot/hitl/sweeper"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// lastTxID is the id of the file's last committed write transaction:
// every commit, even one that changed nothing, moves it on.
func lastTxID(tb testing.TB, db *DB) int {
	tb.Helper()
	var id int
	require.NoError(tb, db.bolt.View(func(tx *bolt.Tx) error {
		id = tx.ID()
		return nil
	}))
	return id
}

func TestIdleSweepWritesNothing(t *testing.T) {
	const retention = time.Hour
	t.Run("a sweep with nothing due commits nothing", func(t *testing.T) {
		db := openTestDB(t)
		clock := newClock()
		svc := newService(db, clock)
		// Something of every kind the sweep looks at, none of it due: pending
		// questions, a settled one and events within retention, a run that
		// ended, a learned rule not yet expired.
		for i := range 3 {
			ask(t, svc, "job-idle", float64(60*(i+2)))
		}
		q := ask(t, svc, "job-idle", 120)
		_, err := svc.Questions.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "postgres"})
		require.NoError(t, err)
		ctx := as("api:agent")
		_, err = svc.Runs.Publish(ctx, steer.StateEvent{Event: steer.StateRunning, RunID: "run-ended", Stack: []steer.StackEntry{{ID: "run-ended", Iter: 1}}})
		require.NoError(t, err)
		_, err = svc.Runs.Publish(ctx, steer.StateEvent{Event: steer.StateDone, RunID: "run-ended"})
		require.NoError(t, err)
		require.NoError(t, db.PutLearnedRule(context.Background(), &hitl.LearnedRule{ID: "r_1", Agent: "api:agent",
			OpType: hitl.OpShell, Resource: "make", CreatedAt: clock.Now(), ExpiresAt: clock.Now().Add(24 * time.Hour)}))
		clock.Add(30 * time.Minute)

		sweep := sweeper.Work(lifecycleOf(svc), retention)
		before := lastTxID(t, db)
		for range 20 {
			n, err := sweep(context.Background())
			require.NoError(t, err)
			require.Zero(t, n)
		}
		require.Equal(t, before, lastTxID(t, db), "the idle sweep committed")
	})
	t.Run("a sweep with something due still writes it", func(t *testing.T) {
		db := openTestDB(t)
		clock := newClock()
		svc := newService(db, clock)
		q := ask(t, svc, "job-due", 1)
		sweep := sweeper.Work(lifecycleOf(svc), retention)
		clock.Add(2 * time.Minute)
		n, err := sweep(context.Background())
		require.NoError(t, err)
		require.Equal(t, 1, n)
		got, err := db.Question(context.Background(), q.ID)
		require.NoError(t, err)
		require.Equal(t, hitl.StatusTimeout, got.Status)

		clock.Add(2 * retention)
		n, err = sweep(context.Background())
		require.NoError(t, err)
		require.Positive(t, n)
		_, err = db.Question(context.Background(), q.ID)
		require.Equal(t, fault.ENOTFOUND, fault.Code(err))
		before := lastTxID(t, db)
		_, err = sweep(context.Background())
		require.NoError(t, err)
		require.Equal(t, before, lastTxID(t, db), "the sweep after pruning committed")
	})
}

// lifecycleOf is the sweeper's part of svc, as the wiring fills it
// (cmd/hitl/adapters.go).
func lifecycleOf(svc *service.Service) sweeper.Lifecycle {
	return sweeper.Lifecycle{Questions: svc.Questions, Runs: svc.Runs, Policies: svc.Policies, Guard: svc.Guard}
}
