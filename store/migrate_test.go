package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl"
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
	q, _, err := svc.Create(principaltest.As(ctx, "api:ci"), "run-1", hitl.NewQuestion{Question: "Deploy?", IdempotencyKey: "deploy-41"})
	require.NoError(t, err)
	// Turn the file into what version 2 wrote.
	require.NoError(t, db.bolt.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketIdem); err != nil {
			return err
		}
		b, err := tx.CreateBucket(bucketIdem)
		if err != nil {
			return err
		}
		if err := b.Put(idemKey("run-1", "deploy-41"), []byte(q.ID)); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchema, u64(2))
	}))
	require.NoError(t, db.Close())

	db, err = Open(path)
	require.NoError(t, err)
	closeAndCheckOnCleanup(t, db)
	got, err := db.QuestionByKey(ctx, "run-1", hitl.KeyOf("api:ci", "deploy-41"))
	require.NoError(t, err)
	require.Equal(t, q.ID, got.ID)
	_, err = db.QuestionByKey(ctx, "run-1", hitl.KeyOf("api:other", "deploy-41"))
	require.Equal(t, hitl.ENOTFOUND, hitl.ErrorCode(err))
}
