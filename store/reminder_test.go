package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// remindingService is newService with blocking questions reminded at 10
// minutes.
func remindingService(db hitl.Store, clock hitl.Clock) *service.Service {
	return service.NewService(db, service.ServiceConfig{Notifier: notify.New(), Clock: clock,
		NewID:     func() string { return fmt.Sprintf("q_%06d", lastID.Add(1)) },
		Reminders: hitl.ReminderPolicies{hitl.Blocking: {Every: []hitl.Duration{hitl.Duration(10 * time.Minute)}}}})
}

// TestMigrateReminderIndex: a version 4 file had no by_reminder; opening
// it builds the index from the questions once (a question holding a plan
// is due at its time) and stamps version 5.
func TestMigrateReminderIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := Open(path)
	require.NoError(t, err)
	clock := newClock()
	svc := remindingService(db, clock)
	q, _, err := svc.Questions.Create(principaltest.As(ctx, "api:ci"), "run-1", hitl.NewQuestion{Question: "Deploy?"})
	require.NoError(t, err)
	require.NotNil(t, q.Reminders)
	// Turn the file into what version 4 wrote: no by_reminder bucket.
	require.NoError(t, db.bolt.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketByReminder); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchema, u64(4))
	}))
	require.NoError(t, db.Close())

	db, err = Open(path)
	require.NoError(t, err)
	closeAndCheckOnCleanup(t, db)
	require.NoError(t, db.bolt.View(func(tx *bolt.Tx) error {
		assert.Equal(t, u64(SchemaVersion), tx.Bucket(bucketMeta).Get(keySchema))
		return nil
	}))
	due, err := db.DueReminders(ctx, t0.Add(11*time.Minute), 0)
	require.NoError(t, err)
	assert.Equal(t, []string{q.ID}, due)
	clock.Add(11 * time.Minute)
	n, err := remindingService(db, clock).Questions.SweepReminders(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

// BenchmarkReminderSweep is the sweep's reminder pass with 100,000
// questions pending and 10 due: it reads the due part of by_reminder, so
// it costs what 10 reminders cost, not what 100,000 pending do.
func BenchmarkReminderSweep(b *testing.B) {
	const pending, due = 100_000, 10
	ctx := context.Background()
	db, err := Open(filepath.Join(b.TempDir(), "hitl.db"))
	require.NoError(b, err)
	defer db.Close()
	clock := newClock()
	loadReminding(b, db, 0, pending-due, clock.Now(), time.Hour)
	svc := newService(db, clock)
	next := pending - due
	for b.Loop() {
		b.StopTimer()
		loadReminding(b, db, next, due, clock.Now(), -time.Second)
		next += due
		b.StartTimer()
		n, err := svc.Questions.SweepReminders(ctx)
		if err != nil || n != due {
			b.Fatalf("sweep: %d, %v; want %d", n, err, due)
		}
	}
}

// loadReminding writes n pending questions numbered from first, with a
// reminder due after now+in (spread over 1,000 minutes when in is
// positive), in large transactions.
func loadReminding(b *testing.B, db *DB, first, n int, now time.Time, in time.Duration) {
	b.Helper()
	const perTx = 20_000
	for start := first; start < first+n; start += perTx {
		err := db.bolt.Update(func(tx *bolt.Tx) error {
			for i := start; i < min(start+perTx, first+n); i++ {
				q, err := benchQuestion.Build(fmt.Sprintf("q_%08d", i), fmt.Sprintf("job-%d", i%100), "api:bench",
					now.Add(-time.Minute), hitl.DefaultTimeouts())
				if err != nil {
					return err
				}
				timeout := now.Add(48 * time.Hour)
				q.TimeoutAt = &timeout
				at := now.Add(in)
				if in > 0 {
					at = at.Add(time.Duration(i%1000) * time.Minute)
				}
				q.Reminders = hitl.ReminderPolicy{Every: []hitl.Duration{hitl.Duration(at.Sub(q.CreatedAt))}}.PlanFor(q.CreatedAt, q.TimeoutAt)
				data, err := json.Marshal(q)
				if err != nil {
					return err
				}
				if err := putQuestion(tx, nil, q, data, nil); err != nil {
					return err
				}
			}
			return nil
		})
		require.NoError(b, err)
	}
}
