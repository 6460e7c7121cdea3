package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// schema2Policy is a policy as schema 2 stored it, learned rules inside.
const schema2Policy = `{
  "rules": [{"name": "safe-git", "opType": "shell", "resource": "git status", "effect": "allow"}],
  "learned": [
    {"id": "r_AAAA", "name": "learned r_AAAA: shell rm -rf", "opType": "shell", "resource": "rm -rf", "agent": "api:ci",
     "effect": "allow", "learned": true, "createdBy": "slack:U1", "createdAt": "2026-01-01T00:00:00Z"},
    {"id": "r_BBBB", "name": "learned r_BBBB: file_write ", "opType": "file_write", "agent": "api:ci",
     "effect": "allow", "learned": true, "createdBy": "slack:U2"},
    {"id": "r_CCCC", "name": "learned r_CCCC: shell make", "opType": "shell", "resource": "make", "agent": "api:cd",
     "effect": "allow", "learned": true, "createdBy": "slack:U1", "createdAt": "2025-10-01T12:00:00Z"}
  ],
  "fileHash": "abc123",
  "updatedBy": "api:admin"
}`

// schema2File writes a database as the previous version left it: schema 2,
// its buckets, and policy as the stored policy.
func schema2File(t *testing.T, policy string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hitl.db")
	raw, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, raw.Update(func(tx *bolt.Tx) error {
		for _, name := range allBuckets {
			if isLearnedBucket(name) {
				continue // schema 2 had none
			}
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		require.NoError(t, meta.Put(keySchema, u64(2)))
		return meta.Put(keyPolicy, []byte(policy))
	}))
	require.NoError(t, raw.Close())
	return path
}

func isLearnedBucket(name []byte) bool {
	for _, b := range learnedBuckets {
		if string(b) == string(name) {
			return true
		}
	}
	return false
}

func TestMigrateLearned(t *testing.T) {
	t.Run("the policy's learned rules become records and leave the policy", func(t *testing.T) {
		path := schema2File(t, schema2Policy)
		before := time.Now()
		db, err := Open(path)
		require.NoError(t, err)
		closeAndCheckOnCleanup(t, db)
		ctx := context.Background()

		page, err := db.LearnedRules(ctx, hitl.LearnedRuleFilter{})
		require.NoError(t, err)
		require.Len(t, page.Rules, 3)
		byID := map[string]*hitl.LearnedRule{}
		for _, r := range page.Rules {
			byID[r.ID] = r
		}
		rm := byID["r_AAAA"]
		require.NotNil(t, rm)
		require.Equal(t, hitl.LearnedRule{ID: "r_AAAA", Agent: "api:ci", OpType: hitl.OpShell, Resource: "rm -rf", CreatedBy: "slack:U1",
			CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ExpiresAt: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)}, *rm)
		got, err := db.LearnedRule(ctx, hitl.LearnedRuleKey{Agent: "api:ci", OpType: hitl.OpShell, Resource: "rm -rf"})
		require.NoError(t, err)
		require.Equal(t, "r_AAAA", got.ID, "found by its exact key")
		got, err = db.LearnedRule(ctx, hitl.LearnedRuleKey{Agent: "api:ci", OpType: hitl.OpShell, Resource: "rm -rf /"})
		require.NoError(t, err)
		require.Nil(t, got, "the old prefix is now matched exactly")

		undated := byID["r_BBBB"]
		require.NotNil(t, undated)
		require.Empty(t, undated.Resource, "the empty resource stays empty (and now matches only itself)")
		require.False(t, undated.CreatedAt.Before(before.Add(-time.Second)), "no createdAt: made at the migration")
		require.Equal(t, undated.CreatedAt.Add(hitl.DefaultLearnedTTL), undated.ExpiresAt)

		n, err := db.PruneLearnedRules(ctx, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 10)
		require.NoError(t, err)
		require.Equal(t, 1, n, "r_CCCC expired on 2025-10-31: prunable")

		st, err := db.PolicyState(ctx)
		require.NoError(t, err)
		require.Equal(t, "abc123", st.FileHash)
		require.Equal(t, "api:admin", st.UpdatedBy)
		require.Len(t, st.Rules, 1)
		require.Equal(t, "safe-git", st.Rules[0].Name)
		require.NoError(t, db.bolt.View(func(tx *bolt.Tx) error {
			var raw map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(tx.Bucket(bucketMeta).Get(keyPolicy), &raw))
			require.NotContains(t, raw, "learned", "the policy JSON no longer holds them")
			require.Equal(t, u64(SchemaVersion), tx.Bucket(bucketMeta).Get(keySchema))
			return nil
		}))
	})

	t.Run("a second open migrates nothing again", func(t *testing.T) {
		path := schema2File(t, schema2Policy)
		db, err := Open(path)
		require.NoError(t, err)
		_, err = db.DeleteLearnedRule(context.Background(), "r_AAAA")
		require.NoError(t, err)
		require.NoError(t, db.Close())
		db, err = Open(path)
		require.NoError(t, err)
		closeAndCheckOnCleanup(t, db)
		page, err := db.LearnedRules(context.Background(), hitl.LearnedRuleFilter{})
		require.NoError(t, err)
		require.Len(t, page.Rules, 2, "a revoked rule does not come back from the old list")
	})

	t.Run("a policy without learned rules and no policy at all migrate", func(t *testing.T) {
		for _, policy := range []string{`{"rules":[],"fileHash":"x"}`, `{"rules":[],"learned":null}`} {
			db, err := Open(schema2File(t, policy))
			require.NoError(t, err, policy)
			closeAndCheckOnCleanup(t, db)
			page, err := db.LearnedRules(context.Background(), hitl.LearnedRuleFilter{})
			require.NoError(t, err)
			require.Empty(t, page.Rules)
		}
	})

	t.Run("two old rules with one key keep the later", func(t *testing.T) {
		db, err := Open(schema2File(t, `{"rules":[],"learned":[
			{"id":"r_1","opType":"shell","resource":"make","agent":"api:ci","effect":"allow","learned":true,"createdAt":"2026-01-01T00:00:00Z"},
			{"id":"r_2","opType":"shell","resource":"make","agent":"api:ci","effect":"allow","learned":true,"createdAt":"2026-01-02T00:00:00Z"}]}`))
		require.NoError(t, err)
		closeAndCheckOnCleanup(t, db)
		page, err := db.LearnedRules(context.Background(), hitl.LearnedRuleFilter{})
		require.NoError(t, err)
		require.Len(t, page.Rules, 1)
		require.Equal(t, "r_2", page.Rules[0].ID)
	})

	t.Run("a policy that does not decode is refused and the file left as it was", func(t *testing.T) {
		path := schema2File(t, `{"rules":[],"learned":[{"id": 7}]}`)
		_, err := Open(path)
		require.ErrorContains(t, err, "learned rules")
		raw, err := bolt.Open(path, 0o600, nil)
		require.NoError(t, err)
		defer raw.Close()
		require.NoError(t, raw.View(func(tx *bolt.Tx) error {
			require.Equal(t, u64(2), tx.Bucket(bucketMeta).Get(keySchema))
			require.Nil(t, tx.Bucket(bucketLearned))
			return nil
		}))
	})
}

func TestCheckLearned(t *testing.T) {
	t.Run("stray and missing learned-rule index entries are reported", func(t *testing.T) {
		db := openTestDB(t)
		ctx := context.Background()
		r := &hitl.LearnedRule{ID: "r_1", Agent: "api:ci", OpType: hitl.OpShell, Resource: "make", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		require.NoError(t, db.PutLearnedRule(ctx, r))
		require.NoError(t, db.Check())

		require.NoError(t, db.bolt.Update(func(tx *bolt.Tx) error {
			require.NoError(t, tx.Bucket(bucketLearnedByExpiry).Delete(timeIDKey(r.ExpiresAt, r.ID)))
			require.NoError(t, tx.Bucket(bucketLearnedByAgent).Put(append(agentPrefix("api:ci"), "r_missing"...), []byte{}))
			return tx.Bucket(bucketLearnedByKey).Put(learnedKey(r.Key()), []byte("r_other"))
		}))
		err := db.Check()
		require.ErrorContains(t, err, "learned_by_expiry is missing entry")
		require.ErrorContains(t, err, "learned_by_agent has a stray entry")
		require.ErrorContains(t, err, `maps to "r_other", want "r_1"`)

		// Repair, so that the check on cleanup passes.
		require.NoError(t, db.PutLearnedRule(ctx, r))
		require.NoError(t, db.bolt.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketLearnedByAgent).Delete(append(agentPrefix("api:ci"), "r_missing"...))
		}))
	})
}
