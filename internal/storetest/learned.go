package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runLearned is the contract of the learned-rule methods.
func runLearned(t *testing.T, open func(t *testing.T) hitl.PolicyStore) {
	t.Run("a learned rule is found by its exact key", func(t *testing.T) { testLearnedKey(t, open(t)) })
	t.Run("a put replaces the rule of the same key, whose id is gone", func(t *testing.T) { testLearnedReplace(t, open(t)) })
	t.Run("a deleted rule is gone and never comes back", func(t *testing.T) { testLearnedDelete(t, open(t)) })
	t.Run("learned rules page in id order, all or one agent's", func(t *testing.T) { testLearnedPaging(t, open(t)) })
	t.Run("prune deletes only expired rules, up to the limit", func(t *testing.T) { testLearnedPrune(t, open(t)) })
	t.Run("concurrent puts of different keys all survive", func(t *testing.T) { testLearnedConcurrentPuts(t, open(t)) })
	t.Run("concurrent puts and deletes leave exactly the expected rules", func(t *testing.T) { testLearnedPutsAndDeletes(t, open(t)) })
}

// rule is a learned rule made at t0 that expires in a day.
func rule(id, agent string, op hitl.OpType, resource string) *hitl.LearnedRule {
	return &hitl.LearnedRule{ID: id, Agent: agent, OpType: op, Resource: resource, CreatedBy: "slack:UPERSON",
		QuestionID: "q_" + id, CreatedAt: t0, ExpiresAt: t0.Add(24 * time.Hour)}
}

func putRule(t *testing.T, st hitl.PolicyStore, r *hitl.LearnedRule) {
	t.Helper()
	require.NoError(t, st.PutLearnedRule(context.Background(), r))
}

func lookup(t *testing.T, st hitl.PolicyStore, agent string, op hitl.OpType, resource string) *hitl.LearnedRule {
	t.Helper()
	r, err := st.LearnedRule(context.Background(), hitl.LearnedRuleKey{Agent: agent, OpType: op, Resource: resource})
	require.NoError(t, err)
	return r
}

// allRules pages through every learned rule (of agent, when set) with
// pages of limit, failing on a page beyond what the rules can fill.
func allRules(t *testing.T, st hitl.PolicyStore, agent string, limit int) []string {
	t.Helper()
	f := hitl.LearnedRuleFilter{Agent: agent, Limit: limit}
	got := []string{}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10_000, "paging ends")
		page, err := st.LearnedRules(context.Background(), f)
		require.NoError(t, err)
		for _, r := range page.Rules {
			got = append(got, r.ID)
		}
		if page.NextCursor == "" {
			return got
		}
		f.Cursor = page.NextCursor
	}
}

func testLearnedKey(t *testing.T, st hitl.PolicyStore) {
	want := rule("r_000001", "api:ci", hitl.OpShell, "git push origin main")
	putRule(t, st, want)
	got := lookup(t, st, "api:ci", hitl.OpShell, "git push origin main")
	require.NotNil(t, got)
	assert.Equal(t, want.ID, got.ID)
	assert.Equal(t, want.CreatedBy, got.CreatedBy)
	assert.Equal(t, want.QuestionID, got.QuestionID)
	assert.True(t, want.CreatedAt.Equal(got.CreatedAt), "createdAt %s", got.CreatedAt)
	assert.True(t, want.ExpiresAt.Equal(got.ExpiresAt), "expiresAt %s", got.ExpiresAt)
	got.Resource = "changed by the caller"
	assert.Equal(t, want.ID, lookup(t, st, "api:ci", hitl.OpShell, "git push origin main").ID, "the caller's copy is its own")

	assert.Nil(t, lookup(t, st, "api:other", hitl.OpShell, "git push origin main"), "another agent")
	assert.Nil(t, lookup(t, st, "api:ci", hitl.OpFileWrite, "git push origin main"), "another operation type")
	assert.Nil(t, lookup(t, st, "api:ci", hitl.OpShell, "git push origin"), "a prefix of the resource")
	assert.Nil(t, lookup(t, st, "api:ci", hitl.OpShell, "git push origin main --force"), "a longer resource")
	assert.Nil(t, lookup(t, st, "api:ci", hitl.OpShell, ""), "the empty resource is a resource of its own")

	t.Run("the empty resource is distinct from a non-empty one", func(t *testing.T) {
		empty := rule("r_000002", "api:ci", hitl.OpShell, "")
		putRule(t, st, empty)
		assert.Equal(t, empty.ID, lookup(t, st, "api:ci", hitl.OpShell, "").ID)
		assert.Equal(t, want.ID, lookup(t, st, "api:ci", hitl.OpShell, "git push origin main").ID, "not replaced")
		assert.Nil(t, lookup(t, st, "api:ci", hitl.OpShell, "ls"))
	})
	t.Run("fields that run together make different keys", func(t *testing.T) {
		// Joined without a boundary these would be one string.
		a := rule("r_000003", "api:a", hitl.OpShell, "x")
		b := rule("r_000004", "api:a"+string(hitl.OpShell), "", "x")
		c := rule("r_000005", "api:a\x00shell", hitl.OpShell, "x")
		d := rule("r_000006", "api:a", hitl.OpShell, "\x00x")
		for _, r := range []*hitl.LearnedRule{a, b, c, d} {
			putRule(t, st, r)
		}
		for _, r := range []*hitl.LearnedRule{a, b, c, d} {
			got := lookup(t, st, r.Agent, r.OpType, r.Resource)
			require.NotNil(t, got, "rule %s", r.ID)
			assert.Equal(t, r.ID, got.ID)
		}
	})
}

func testLearnedReplace(t *testing.T, st hitl.PolicyStore) {
	ctx := context.Background()
	old := rule("r_000001", "api:ci", hitl.OpShell, "make test")
	other := rule("r_000002", "api:ci", hitl.OpShell, "make lint")
	putRule(t, st, old)
	putRule(t, st, other)
	renewed := rule("r_000003", "api:ci", hitl.OpShell, "make test")
	renewed.ExpiresAt = t0.Add(48 * time.Hour)
	putRule(t, st, renewed)

	assert.Equal(t, renewed.ID, lookup(t, st, "api:ci", hitl.OpShell, "make test").ID)
	assert.Equal(t, []string{other.ID, renewed.ID}, allRules(t, st, "", 10), "the old id is not listed")
	assert.Equal(t, []string{other.ID, renewed.ID}, allRules(t, st, "api:ci", 10), "nor in the agent's list")
	_, err := st.DeleteLearnedRule(ctx, old.ID)
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "the replaced id is gone")
	n, err := st.PruneLearnedRules(ctx, t0.Add(24*time.Hour), 10)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the old rule's expiry went with it: only %s expires at t0+24h", other.ID)
	assert.Equal(t, renewed.ID, lookup(t, st, "api:ci", hitl.OpShell, "make test").ID, "the renewed rule expires later")

	t.Run("a put of the same id moves it to its new key", func(t *testing.T) {
		moved := rule(renewed.ID, "api:ci", hitl.OpShell, "make bench")
		putRule(t, st, moved)
		assert.Nil(t, lookup(t, st, "api:ci", hitl.OpShell, "make test"))
		assert.Equal(t, moved.ID, lookup(t, st, "api:ci", hitl.OpShell, "make bench").ID)
		assert.Equal(t, []string{moved.ID}, allRules(t, st, "", 10))
	})
}

func testLearnedDelete(t *testing.T, st hitl.PolicyStore) {
	ctx := context.Background()
	a := rule("r_000001", "api:ci", hitl.OpShell, "make test")
	b := rule("r_000002", "api:ci", hitl.OpFileWrite, "/tmp/out")
	putRule(t, st, a)
	putRule(t, st, b)
	gone, err := st.DeleteLearnedRule(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, a.ID, gone.ID, "returns what it deleted")
	assert.Equal(t, a.Resource, gone.Resource)

	check := func(t *testing.T) {
		t.Helper()
		assert.Nil(t, lookup(t, st, "api:ci", hitl.OpShell, "make test"))
		assert.Equal(t, []string{b.ID}, allRules(t, st, "", 10))
		assert.Equal(t, []string{b.ID}, allRules(t, st, "api:ci", 10))
		_, err := st.DeleteLearnedRule(ctx, a.ID)
		assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	}
	check(t)
	putRule(t, st, rule("r_000003", "api:other", hitl.OpShell, "make test"))
	n, err := st.PruneLearnedRules(ctx, t0, 10)
	require.NoError(t, err)
	assert.Zero(t, n)
	_, err = st.DeleteLearnedRule(ctx, "r_unknown")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "an unknown id")
	_, err = st.DeleteLearnedRule(ctx, "r_000003")
	require.NoError(t, err)
	check(t)
}

func testLearnedPaging(t *testing.T, st hitl.PolicyStore) {
	agents := []string{"api:a", "api:ab", "api:b"}
	var all []string
	byAgent := map[string][]string{}
	for i := range 120 {
		agent := agents[i%3]
		if i >= 60 && i%7 == 0 {
			agent = "api:a" // uneven
		}
		r := rule(fmt.Sprintf("r_%06d", i), agent, hitl.OpShell, fmt.Sprintf("make target-%d", i))
		putRule(t, st, r)
		all = append(all, r.ID)
		byAgent[agent] = append(byAgent[agent], r.ID)
	}
	for _, limit := range []int{1, 7, 40, 120, 500} {
		assert.Equal(t, all, allRules(t, st, "", limit), "every rule once, in id order (limit %d)", limit)
		for _, agent := range agents {
			assert.Equal(t, byAgent[agent], allRules(t, st, agent, limit), "%s's rules once, in id order (limit %d)", agent, limit)
		}
	}
	assert.Equal(t, []string{}, allRules(t, st, "api:nobody", 10), "an agent with no rules")

	t.Run("a full last page ends the list", func(t *testing.T) {
		page, err := st.LearnedRules(context.Background(), hitl.LearnedRuleFilter{Limit: 60, Cursor: all[59]})
		require.NoError(t, err)
		assert.Len(t, page.Rules, 60)
		assert.Empty(t, page.NextCursor)
	})
	t.Run("the cursor holds across deletes and inserts", func(t *testing.T) {
		page, err := st.LearnedRules(context.Background(), hitl.LearnedRuleFilter{Limit: 10})
		require.NoError(t, err)
		require.Equal(t, all[9], page.NextCursor)
		_, err = st.DeleteLearnedRule(context.Background(), all[9])
		require.NoError(t, err)
		putRule(t, st, rule("r_000005x", "api:a", hitl.OpShell, "make late"))
		next, err := st.LearnedRules(context.Background(), hitl.LearnedRuleFilter{Limit: 2, Cursor: page.NextCursor})
		require.NoError(t, err)
		require.Len(t, next.Rules, 2)
		assert.Equal(t, all[10], next.Rules[0].ID, "the page goes on after the deleted cursor")
	})
	t.Run("the page size is bounded", func(t *testing.T) {
		page, err := st.LearnedRules(context.Background(), hitl.LearnedRuleFilter{})
		require.NoError(t, err)
		assert.Len(t, page.Rules, hitl.LearnedRuleFilter{}.PageSize())
	})
}

func testLearnedPrune(t *testing.T, st hitl.PolicyStore) {
	ctx := context.Background()
	var expired []string
	for i := range 25 {
		r := rule(fmt.Sprintf("r_%06d", i), "api:ci", hitl.OpShell, fmt.Sprintf("make %d", i))
		r.ExpiresAt = t0.Add(time.Duration(i-24) * time.Minute) // the last one expires at t0 exactly
		putRule(t, st, r)
		expired = append(expired, r.ID)
	}
	var live []string
	for i := 25; i < 30; i++ {
		r := rule(fmt.Sprintf("r_%06d", i), "api:ci", hitl.OpShell, fmt.Sprintf("make %d", i))
		r.ExpiresAt = t0.Add(time.Nanosecond + time.Duration(i-25)*time.Hour)
		putRule(t, st, r)
		live = append(live, r.ID)
	}
	n, err := st.PruneLearnedRules(ctx, t0, 10)
	require.NoError(t, err)
	assert.Equal(t, 10, n, "the limit holds")
	assert.Equal(t, append(append([]string{}, expired[10:]...), live...), allRules(t, st, "", 100), "the earliest expiries go first")
	n, err = st.PruneLearnedRules(ctx, t0, 10)
	require.NoError(t, err)
	assert.Equal(t, 10, n)
	n, err = st.PruneLearnedRules(ctx, t0, 10)
	require.NoError(t, err)
	assert.Equal(t, 5, n, "less than the limit: done, a rule expiring at now included")
	n, err = st.PruneLearnedRules(ctx, t0, 10)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Equal(t, live, allRules(t, st, "", 100), "rules that expire after now stay")
	assert.Nil(t, lookup(t, st, "api:ci", hitl.OpShell, "make 3"), "a pruned rule is gone from its key")
	assert.Equal(t, live[0], lookup(t, st, "api:ci", hitl.OpShell, "make 25").ID)
}

func testLearnedConcurrentPuts(t *testing.T, st hitl.PolicyStore) {
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := rule(fmt.Sprintf("r_%06d", i), "api:ci", hitl.OpShell, fmt.Sprintf("make %d", i))
			assert.NoError(t, st.PutLearnedRule(context.Background(), r))
		})
	}
	wg.Wait()
	got := allRules(t, st, "", 100)
	assert.Len(t, got, n, "every acknowledged put is stored")
	for i := range n {
		r := lookup(t, st, "api:ci", hitl.OpShell, fmt.Sprintf("make %d", i))
		if assert.NotNil(t, r, "rule %d", i) {
			assert.Equal(t, fmt.Sprintf("r_%06d", i), r.ID)
		}
	}
}

func testLearnedPutsAndDeletes(t *testing.T, st hitl.PolicyStore) {
	const n = 40
	var want []string
	for i := range n {
		putRule(t, st, rule(fmt.Sprintf("r_%06d", i), "api:ci", hitl.OpShell, fmt.Sprintf("make %d", i)))
		if i%2 == 1 {
			want = append(want, fmt.Sprintf("r_%06d", i))
		}
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if i%2 == 0 {
				_, err := st.DeleteLearnedRule(context.Background(), fmt.Sprintf("r_%06d", i))
				assert.NoError(t, err)
			}
		})
		wg.Go(func() {
			r := rule(fmt.Sprintf("r_%06d", n+i), "api:cd", hitl.OpShell, fmt.Sprintf("make %d", i))
			assert.NoError(t, st.PutLearnedRule(context.Background(), r))
		})
	}
	wg.Wait()
	for i := range n {
		want = append(want, fmt.Sprintf("r_%06d", n+i))
	}
	assert.Equal(t, want, allRules(t, st, "", 7), "the puts survive, the deletes hold")
	for i := range n {
		r := lookup(t, st, "api:ci", hitl.OpShell, fmt.Sprintf("make %d", i))
		if i%2 == 0 {
			assert.Nil(t, r, "deleted rule %d", i)
		} else {
			assert.NotNil(t, r, "kept rule %d", i)
		}
	}
}
