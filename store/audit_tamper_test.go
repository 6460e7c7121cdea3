package store

import (
	"testing"

	"github.com/hitlbot/hitl/internal/storetest"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// boltTamper edits the audit bucket directly.
type boltTamper struct{ db *DB }

func (b boltTamper) Edit(t *testing.T, seq uint64, edit func([]byte) []byte) {
	require.NoError(t, b.db.bolt.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketAudit)
		v := append([]byte(nil), bk.Get(u64(seq))...)
		return bk.Put(u64(seq), edit(v))
	}))
}

func (b boltTamper) Delete(t *testing.T, seq uint64) {
	require.NoError(t, b.db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketAudit).Delete(u64(seq)) }))
}

func (b boltTamper) Swap(t *testing.T, x, y uint64) {
	require.NoError(t, b.db.bolt.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketAudit)
		vx, vy := append([]byte(nil), bk.Get(u64(x))...), append([]byte(nil), bk.Get(u64(y))...)
		if err := bk.Put(u64(x), vy); err != nil {
			return err
		}
		return bk.Put(u64(y), vx)
	}))
}

// TestAuditTamper: verify names the record edited, deleted or reordered
// directly in the bbolt file.
func TestAuditTamper(t *testing.T) {
	storetest.RunAuditTamper(t, func(t *testing.T) (storetest.AuditBackend, storetest.Tamper) {
		db := openTestDB(t)
		return db, boltTamper{db}
	})
}
