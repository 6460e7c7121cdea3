package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

func TestOpen(t *testing.T) {
	t.Run("reopened database keeps questions answers and events", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "hitl.db")
		db, err := Open(path)
		require.NoError(t, err)
		clock := newClock()
		svc := newService(db, clock)
		q1 := ask(t, svc, "job-1", 30)
		q2 := ask(t, svc, "job-1", 10)
		_, err = svc.Questions.Answer(as("slack:U1"), q1.ID, hitl.Response{Value: "postgres"})
		require.NoError(t, err)
		require.NoError(t, db.Check())
		require.NoError(t, db.Close())

		db, err = Open(path)
		require.NoError(t, err)
		closeAndCheckOnCleanup(t, db)
		ctx := context.Background()
		got, err := db.Question(ctx, q1.ID)
		require.NoError(t, err)
		require.Equal(t, hitl.StatusAnswered, got.Status)
		require.Equal(t, "postgres", got.Response.Value)
		require.Equal(t, "slack:U1", got.RespondedBy)
		pendingPage, err := db.Questions(ctx, hitl.QuestionFilter{Status: hitl.StatusPending})
		pending := pendingPage.Questions
		require.NoError(t, err)
		require.Equal(t, []string{q2.ID}, ids(pending))
		due, err := db.DueQuestions(ctx, t0.Add(time.Hour), 10)
		require.NoError(t, err)
		require.Equal(t, []string{q2.ID}, due)

		// The event sequence goes on where it stopped.
		q3 := ask(t, newService(db, clock), "job-2", 30)
		evs, err := db.Events(ctx, 0, 0)
		require.NoError(t, err)
		require.Len(t, evs, 4)
		require.Equal(t, uint64(4), evs[3].Seq)
		require.Equal(t, q3.ID, evs[3].QuestionID)
	})

	t.Run("database locked by another process gives a clear error", func(t *testing.T) {
		db := openTestDB(t)
		start := time.Now()
		_, err := Open(db.Path(), WithLockTimeout(50*time.Millisecond))
		require.Error(t, err)
		require.Equal(t, fault.EUNAVAILABLE, fault.Code(err))
		require.Contains(t, err.Error(), "database is locked by another hitl process")
		require.Contains(t, err.Error(), db.Path())
		require.Less(t, time.Since(start), 5*time.Second)
	})

	t.Run("newer schema version is refused and left untouched", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "hitl.db")
		db, err := Open(path)
		require.NoError(t, err)
		require.NoError(t, db.bolt.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(keySchema, u64(SchemaVersion+1))
		}))
		require.NoError(t, db.Close())

		_, err = Open(path)
		require.ErrorContains(t, err, "newer than this hitl supports")

		raw, err := bolt.Open(path, 0o600, nil)
		require.NoError(t, err)
		defer raw.Close()
		require.NoError(t, raw.View(func(tx *bolt.Tx) error {
			require.Equal(t, u64(SchemaVersion+1), tx.Bucket(bucketMeta).Get(keySchema))
			return nil
		}))
	})

	t.Run("foreign bbolt file is refused", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "other.db")
		raw, err := bolt.Open(path, 0o600, nil)
		require.NoError(t, err)
		require.NoError(t, raw.Update(func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket([]byte("widgets"))
			return err
		}))
		require.NoError(t, raw.Close())

		_, err = Open(path)
		require.ErrorContains(t, err, "not a hitl database")
	})

	t.Run("new database has every bucket and the schema version and syncs commits", func(t *testing.T) {
		db := openTestDB(t)
		require.False(t, db.bolt.NoSync)
		require.NoError(t, db.bolt.View(func(tx *bolt.Tx) error {
			for _, name := range allBuckets {
				require.NotNil(t, tx.Bucket(name), "bucket %s", name)
			}
			require.Equal(t, u64(SchemaVersion), tx.Bucket(bucketMeta).Get(keySchema))
			return nil
		}))
	})
}

func TestCheck(t *testing.T) {
	t.Run("stray and missing index entries are reported", func(t *testing.T) {
		db := openTestDB(t)
		q := ask(t, newService(db, newClock()), "job-1", 30)
		require.NoError(t, db.Check())

		require.NoError(t, db.bolt.Update(func(tx *bolt.Tx) error {
			require.NoError(t, tx.Bucket(bucketByStatus).Delete(prefixedTimeKey("pending", q.CreatedAt, q.ID)))
			return tx.Bucket(bucketByDeadline).Put(timeIDKey(t0, "q_missing"), []byte{})
		}))
		err := db.Check()
		require.ErrorContains(t, err, "by_status is missing entry")
		require.ErrorContains(t, err, "by_deadline has a stray entry")

		// Repair, so that the check on cleanup passes.
		require.NoError(t, db.bolt.Update(func(tx *bolt.Tx) error {
			require.NoError(t, tx.Bucket(bucketByStatus).Put(prefixedTimeKey("pending", q.CreatedAt, q.ID), []byte{}))
			return tx.Bucket(bucketByDeadline).Delete(timeIDKey(t0, "q_missing"))
		}))
	})
}

func TestTimeKey(t *testing.T) {
	t.Run("keys sort like times", func(t *testing.T) {
		require.Equal(t, uint64(0), timeKey(time.Time{}), "clamped")
		require.Equal(t, uint64(0), timeKey(time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC)), "clamped")
		times := []time.Time{
			time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC), time.Unix(-1, 0), time.Unix(0, 0),
			time.Unix(0, 1), t0, t0.Add(time.Nanosecond), time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC),
		}
		for i := 1; i < len(times); i++ {
			require.Less(t, timeKey(times[i-1]), timeKey(times[i]), "%s < %s", times[i-1], times[i])
		}
	})
}
