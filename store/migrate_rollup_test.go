package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestMigrateRollups: a version 9 file has no rollups; opening it builds
// them from the questions and the log, equal to those the writes kept.
func TestMigrateRollups(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := Open(path)
	require.NoError(t, err)
	clock := newClock()
	svc := newService(db, clock)
	var qs []*hitl.Question
	for i := range 40 {
		clock.Add(time.Duration(i) * 97 * time.Second)
		qs = append(qs, ask(t, svc, []string{"build", "deploy", "lint"}[i%3], 30))
		switch {
		case i%4 == 1:
			_, err := svc.Questions.Answer(as("local"), qs[i-1].ID, hitl.Response{Value: "ok"})
			require.NoError(t, err)
		case i%4 == 2:
			_, err := svc.Questions.Cancel(as("api:agent"), qs[i-1].ID, "not needed")
			require.NoError(t, err)
		case i%4 == 3:
			require.NoError(t, db.AppendEvent(ctx, &hitl.Event{Type: hitl.EventQuestionReminded, RunID: "build", At: clock.Now()}))
		}
	}
	clock.Add(2 * time.Hour)
	_, err = svc.Questions.SweepExpired(ctx)
	require.NoError(t, err)
	read := func(db *DB) map[time.Duration][]*hitl.Rollup {
		t.Helper()
		out := map[time.Duration][]*hitl.Rollup{}
		for _, span := range hitl.RollupSpans {
			rs, err := db.Rollups(ctx, span, t0.Add(-time.Hour), t0.Add(1000*time.Hour))
			require.NoError(t, err)
			require.NotEmpty(t, rs)
			out[span] = rs
		}
		return out
	}
	kept := read(db)
	db = reopenAs(t, db, 9, func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketRollups, bucketRollupRuns, bucketRollupRunsAge} {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		return nil
	})
	built := read(db)
	require.Equal(t, kept, built)
	// The runs' last question times were built too: one more question of
	// build moves build's count from the hour of its last one (which
	// held it) to the new hour.
	var runs int
	for _, r := range built[time.Hour] {
		runs += r.Runs
	}
	require.Equal(t, 3, runs)
	clock.Add(5 * time.Hour)
	ask(t, newService(db, clock), "build", 30)
	after := read(db)
	runs = 0
	for _, r := range after[time.Hour] {
		require.GreaterOrEqual(t, r.Runs, 0, "%+v", r)
		runs += r.Runs
	}
	require.Equal(t, 3, runs, "build counts once")
}
