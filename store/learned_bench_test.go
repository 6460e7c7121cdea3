package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// BenchmarkLearnedRule measures a decision's lookup, a teach (put) and a
// revoke (delete) with 100 and with 100,000 learned rules stored: the
// store's share of issue 12's aim that 100,000 ÷ 100 stay ≤ 2. Put and
// delete are durable commits, one at a time; each keeps the number of
// rules as it was (the put's rule is deleted, the deleted rule put, with
// the timer stopped).
func BenchmarkLearnedRule(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		db, err := Open(filepath.Join(b.TempDir(), "hitl.db"))
		require.NoError(b, err)
		loadLearned(b, db, n)
		ctx := context.Background()
		b.Run(fmt.Sprintf("lookup/rules=%d", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				i = (i + 7919) % n // a prime stride: keys all over the tree
				r, err := db.LearnedRule(ctx, benchRuleKey(i))
				if err != nil || r == nil {
					b.Fatalf("lookup %d: %v, %v", i, r, err)
				}
			}
		})
		b.Run(fmt.Sprintf("put/rules=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r := benchRule(n+i, time.Now())
				if err := db.PutLearnedRule(ctx, r); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if _, err := db.DeleteLearnedRule(ctx, r.ID); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
		b.Run(fmt.Sprintf("delete/rules=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				r := benchRule(n+i, time.Now())
				if err := db.PutLearnedRule(ctx, r); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := db.DeleteLearnedRule(ctx, r.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
		require.NoError(b, db.Close())
	}
}

func benchRuleKey(i int) hitl.LearnedRuleKey {
	return hitl.LearnedRuleKey{Agent: fmt.Sprintf("api:agent-%d", i%50), OpType: hitl.OpShell,
		Resource: fmt.Sprintf("go test ./pkg/%d/... -run TestThing%d", i, i)}
}

func benchRule(i int, now time.Time) *hitl.LearnedRule {
	k := benchRuleKey(i)
	return &hitl.LearnedRule{ID: fmt.Sprintf("r_%016d", i), Agent: k.Agent, OpType: k.OpType, Resource: k.Resource,
		CreatedBy: "slack:U024BE7LH", QuestionID: fmt.Sprintf("q_%016d", i), CreatedAt: now,
		ExpiresAt: now.Add(hitl.DefaultLearnedTTL + time.Duration(i)*time.Second)}
}

// loadLearned stores n learned rules in a few large transactions.
func loadLearned(b *testing.B, db *DB, n int) {
	b.Helper()
	const perTx = 20_000
	now := time.Now()
	for start := 0; start < n; start += perTx {
		err := db.bolt.Update(func(tx *bolt.Tx) error {
			for i := start; i < min(start+perTx, n); i++ {
				if err := putLearned(tx, benchRule(i, now)); err != nil {
					return err
				}
			}
			return nil
		})
		require.NoError(b, err)
	}
}
