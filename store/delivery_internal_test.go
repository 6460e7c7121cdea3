package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

func TestOutboxFromBeforeTheIndex(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "hitl.db"))
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Enqueue(ctx, 3, []hitl.Delivery{{Kind: "post", QuestionID: "q1", Target: "C1"}, {Kind: "post", QuestionID: "q1", Target: "U1"}}))
	// A file written before the by-target index: deliveries, no index.
	require.NoError(t, db.bolt.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketOutboxByTarget); err != nil {
			return err
		}
		_, err := tx.CreateBucket(bucketOutboxByTarget)
		return err
	}))
	require.NoError(t, db.Check(), "an index not built yet is not an inconsistency")

	targets, err := db.Targets(ctx, "", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"C1", "U1"}, targets, "the index is built on first use")
	d, err := db.NextDelivery(ctx, "U1")
	require.NoError(t, err)
	assert.Equal(t, "q1", d.QuestionID)
	require.NoError(t, db.Check())
}

func TestCheckFindsAStrayOutboxEntry(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "hitl.db"))
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Enqueue(context.Background(), 1, []hitl.Delivery{{Kind: "post", QuestionID: "q1", Target: "C1"}}))
	require.NoError(t, db.bolt.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketOutboxByTarget).Put(targetKey("C2", 99), []byte{})
	}))
	assert.ErrorContains(t, db.Check(), "stray entry")
}
