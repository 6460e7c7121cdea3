package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestMigrateKeysPerAsker: a version 2 file held idempotency keys by run
// and key; opening it holds them by run, asker and key, so a retry of a
// question asked before the upgrade still finds it.
func TestMigrateKeysPerAsker(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := Open(path)
	require.NoError(t, err)
	svc := newService(db, newClock())
	q, _, err := svc.Questions.Create(principaltest.As(ctx, "api:ci"), "run-1", hitl.NewQuestion{Question: "Deploy?", IdempotencyKey: "deploy-41"})
	require.NoError(t, err)
	db = reopenAs(t, db, 2, func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketIdem); err != nil {
			return err
		}
		b, err := tx.CreateBucket(bucketIdem)
		if err != nil {
			return err
		}
		return b.Put(idemKey("run-1", "deploy-41"), []byte(q.ID))
	})
	got, err := db.QuestionByKey(ctx, "run-1", hitl.KeyOf("api:ci", "deploy-41"))
	require.NoError(t, err)
	require.Equal(t, q.ID, got.ID)
	_, err = db.QuestionByKey(ctx, "run-1", hitl.KeyOf("api:other", "deploy-41"))
	require.Equal(t, fault.ENOTFOUND, fault.Code(err))
}

// TestMigrateListIndexes: a version 3 file had no events_by_run and no
// by_filter; opening it builds both once, from the log and the questions,
// so a run's replay and an asker's pending list read them at once.
func TestMigrateListIndexes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := Open(path)
	require.NoError(t, err)
	svc := newService(db, newClock())
	asker := principaltest.As(ctx, "api:ci")
	var pending []string
	for i := range 6 {
		q, _, err := svc.Questions.Create(asker, fmt.Sprintf("run-%d", i%2), hitl.NewQuestion{Question: "Deploy?"})
		require.NoError(t, err)
		if i%3 == 0 {
			_, err = svc.Questions.Answer(principaltest.As(ctx, "local"), q.ID, hitl.Response{Value: "ok"})
			require.NoError(t, err)
		} else {
			pending = append(pending, q.ID)
		}
	}
	wantRun, err := db.Events(ctx, 0, 0)
	require.NoError(t, err)
	wantRun = slices.DeleteFunc(wantRun, func(ev *hitl.Event) bool { return ev.RunID != "run-1" })
	require.NotEmpty(t, wantRun)
	db = reopenAs(t, db, 3, func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketEventsByRun, bucketByFilter} {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, db.bolt.View(func(tx *bolt.Tx) error {
		require.Equal(t, uint64(SchemaVersion), binary.BigEndian.Uint64(tx.Bucket(bucketMeta).Get(keySchema)))
		return nil
	}))
	got, _, err := db.RunEvents(ctx, "run-1", 0, 0)
	require.NoError(t, err)
	require.Equal(t, wantRun, got)
	require.ElementsMatch(t, pending, listed(t, db, hitl.QuestionFilter{Asker: "api:ci", Status: hitl.StatusPending}))
}

// TestMigrateDueLists: a version 5 file had no by_due_list; opening it
// builds it once from the questions, so the pending list, a person's
// queue and the unassigned list read by deadline at once.
func TestMigrateDueLists(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := Open(path)
	require.NoError(t, err)
	svc := newService(db, newClock())
	asker := principaltest.As(ctx, "api:ci")
	minutes := func(m float64) *float64 { return &m }
	later, _, err := svc.Questions.Create(asker, "run-1", hitl.NewQuestion{Question: "Later?", TimeoutMinutes: minutes(30), Assignees: []string{"U0ME"}})
	require.NoError(t, err)
	never, _, err := svc.Questions.Create(asker, "run-1", hitl.NewQuestion{Question: "Whenever?", Type: hitl.NonBlocking, DefaultResponse: &hitl.Response{Value: "no"}})
	require.NoError(t, err)
	soon, _, err := svc.Questions.Create(asker, "run-2", hitl.NewQuestion{Question: "Soon?", TimeoutMinutes: minutes(5)})
	require.NoError(t, err)
	done, _, err := svc.Questions.Create(asker, "run-2", hitl.NewQuestion{Question: "Done?", TimeoutMinutes: minutes(1)})
	require.NoError(t, err)
	_, err = svc.Questions.Answer(principaltest.As(ctx, "local"), done.ID, hitl.Response{Value: "ok"})
	require.NoError(t, err)
	require.Nil(t, never.TimeoutAt)
	db = reopenAs(t, db, 5, func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketByDueList) })
	list := func(f hitl.QuestionFilter) []string { t.Helper(); return listed(t, db, f) }
	require.Equal(t, []string{soon.ID, later.ID, never.ID}, list(hitl.QuestionFilter{ByDeadline: true}))
	require.Equal(t, []string{soon.ID, later.ID, never.ID}, list(hitl.QuestionFilter{ByDeadline: true, Queue: []string{"U0ME"}, Unassigned: true}))
	require.Equal(t, []string{soon.ID, never.ID}, list(hitl.QuestionFilter{ByDeadline: true, Unassigned: true}))
	require.Equal(t, []string{later.ID, never.ID}, list(hitl.QuestionFilter{ByDeadline: true, RunID: "run-1"}))
	require.Equal(t, []string{never.ID}, list(hitl.QuestionFilter{ByDeadline: true, Type: hitl.NonBlocking}))
}

// reopenAs turns db's file into what schema version wrote (old edits it,
// in the transaction that sets the version), closes it and opens it
// again, which migrates it. The reopened DB is checked on cleanup.
func reopenAs(t *testing.T, db *DB, version uint64, old func(tx *bolt.Tx) error) *DB {
	t.Helper()
	require.NoError(t, db.bolt.Update(func(tx *bolt.Tx) error {
		if err := old(tx); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchema, u64(version))
	}))
	path := db.bolt.Path()
	require.NoError(t, db.Close())
	db, err := Open(path)
	require.NoError(t, err)
	closeAndCheckOnCleanup(t, db)
	return db
}

// listed is the ids of the first page of questions f lists.
func listed(t *testing.T, db *DB, f hitl.QuestionFilter) []string {
	t.Helper()
	page, err := db.Questions(context.Background(), f)
	require.NoError(t, err)
	return ids(page.Questions)
}
