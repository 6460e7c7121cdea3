package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runFilters is the contract of Questions' filters: each list holds
// exactly the questions QuestionFilter.Match passes, in its index's
// order.
func runFilters(t *testing.T, newEnv func(*testing.T) *env) {
	t.Run("every filter lists exactly the questions it matches, in order", func(t *testing.T) { testFiltersMatch(t, newEnv(t)) })
	t.Run("a queue leaves out the questions its person asked", func(t *testing.T) { testNotAskedBy(t, newEnv(t)) })
	t.Run("a page holds the default size, at most the maximum", func(t *testing.T) { testPageBounds(t, newEnv(t)) })
	t.Run("paging stays exact across concurrent inserts, whatever the index", func(t *testing.T) { testPagingConcurrentIndexes(t, newEnv(t)) })
}

// all pages through f with pages of limit and returns every id once read.
func all(t *testing.T, st hitl.Store, f hitl.QuestionFilter, limit int) []string {
	t.Helper()
	f.Limit = limit
	got := []string{}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10_000, "paging ends")
		page, err := st.Questions(context.Background(), f)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(page.Questions), f.PageSize(), "a page is at most its size")
		got = append(got, ids(page.Questions)...)
		if page.NextCursor == "" {
			return got
		}
		f.Cursor = page.NextCursor
	}
}

func testFiltersMatch(t *testing.T, e *env) {
	ctx := context.Background()
	other := auth.TokenPrincipal("other", nil, "")
	forMe := auth.TokenPrincipal("mine", nil, "U0ME")
	askers := []auth.Principal{agent, other, forMe}
	jobs := []string{"run-a", "run-b", "run-c"}
	assignees := [][]string{nil, {"U0ALICE"}, {"U0ALICE", "S0OPS"}, {"U0BOB"}}
	for step := range 60 {
		n := hitl.NewQuestion{Question: fmt.Sprintf("question %d", step), TimeoutMinutes: minutes(float64(5 + step%17)),
			Assignees: assignees[step%len(assignees)]}
		switch step % 4 {
		case 1:
			n.Type, n.ResponseType = hitl.Approval, hitl.ApprovalResponse
		case 2:
			n.Type, n.DefaultResponse, n.TimeoutMinutes = hitl.NonBlocking, &hitl.Response{Value: "later"}, nil
		}
		e.clock.Add(time.Minute)
		q, _, err := e.svc.Questions.Create(as(askers[step%len(askers)]), jobs[step%len(jobs)], n)
		require.NoError(t, err)
		switch step % 5 {
		case 1:
			_, err = e.svc.Questions.Answer(as(person), q.ID, hitl.Response{Value: "approve"})
		case 2:
			_, err = e.svc.Questions.Answer(as(admin), q.ID, hitl.Response{Value: "approve"})
		case 3:
			_, err = e.svc.Questions.Cancel(as(admin), q.ID, "stale")
		}
		require.NoError(t, err)
		if step%10 == 9 {
			_, err := e.svc.Questions.SweepExpired(ctx)
			require.NoError(t, err)
		}
	}
	// Answers out of creation order: the latest pending first.
	pending := all(t, e.store, hitl.QuestionFilter{Status: hitl.StatusPending, Reverse: true}, 4)
	require.GreaterOrEqual(t, len(pending), 4)
	for _, id := range pending[:4] {
		e.clock.Add(time.Minute)
		_, err := e.svc.Questions.Answer(as(person), id, hitl.Response{Value: "approve"})
		require.NoError(t, err)
	}
	// Every question, in creation order.
	everyone := all(t, e.store, hitl.QuestionFilter{}, 1000)
	require.Len(t, everyone, 60)
	var qs []*hitl.Question
	for _, id := range everyone {
		q, err := e.store.Question(ctx, id)
		require.NoError(t, err)
		qs = append(qs, q)
	}
	for _, st := range []hitl.Status{hitl.StatusPending, hitl.StatusAnswered, hitl.StatusTimeout, hitl.StatusCancelled} {
		require.NotZero(t, count(t, e.store, st), "the mix has %s questions", st)
	}
	want := func(f hitl.QuestionFilter) []string {
		var ms []*hitl.Question
		for _, q := range qs {
			if f.Match(q) {
				ms = append(ms, q)
			}
		}
		if f.RespondedBy != "" {
			slices.SortStableFunc(ms, func(a, b *hitl.Question) int { return a.RespondedAt.Compare(*b.RespondedAt) })
		}
		out := ids(ms)
		if f.Reverse {
			slices.Reverse(out)
		}
		return out
	}
	var filters []hitl.QuestionFilter
	for _, st := range []hitl.Status{"", hitl.StatusPending, hitl.StatusAnswered, hitl.StatusTimeout, hitl.StatusCancelled} {
		for _, typ := range []hitl.QuestionType{"", hitl.Blocking, hitl.Approval, hitl.NonBlocking} {
			filters = append(filters, hitl.QuestionFilter{Status: st, Type: typ})
			for _, p := range askers {
				filters = append(filters, hitl.QuestionFilter{Asker: p.ID, Status: st, Type: typ})
			}
			for _, job := range append(jobs, "run-none") {
				filters = append(filters, hitl.QuestionFilter{RunID: job, Status: st, Type: typ})
			}
		}
	}
	for _, a := range []string{"U0ALICE", "S0OPS", "U0BOB", "U0NOBODY"} {
		filters = append(filters, hitl.QuestionFilter{Assignee: a}, hitl.QuestionFilter{Assignee: a, RunID: "run-a"},
			hitl.QuestionFilter{Assignee: a, NotAskedBy: "U0ME"})
	}
	filters = append(filters, hitl.QuestionFilter{Unassigned: true}, hitl.QuestionFilter{Unassigned: true, NotAskedBy: "U0ME"},
		hitl.QuestionFilter{RespondedBy: person.ID}, hitl.QuestionFilter{RespondedBy: admin.ID}, hitl.QuestionFilter{RespondedBy: agent.ID},
		hitl.QuestionFilter{RespondedBy: person.ID, RunID: "run-b"}, hitl.QuestionFilter{NotAskedBy: "U0ME"},
		hitl.QuestionFilter{NotAskedBy: "U0ME", Status: hitl.StatusPending})
	for _, f := range filters {
		for _, reverse := range []bool{false, true} {
			f.Reverse = reverse
			w := want(f)
			assert.Equal(t, w, all(t, e.store, f, 1000), "filter %+v", f)
			assert.Equal(t, w, all(t, e.store, f, 3), "filter %+v in pages of 3", f)
		}
	}
	for _, queue := range [][]string{{"U0ALICE"}, {"U0ALICE", "S0OPS"}, {"U0BOB", "S0OPS"}, {"U0NOBODY"}} {
		for _, unassigned := range []bool{false, true} {
			for _, notMine := range []string{"", "U0ME"} {
				f := hitl.QuestionFilter{Queue: queue, Unassigned: unassigned, NotAskedBy: notMine, Reverse: true}
				page, err := e.store.Questions(ctx, f)
				require.NoError(t, err)
				assert.Equal(t, want(f), ids(page.Questions), "queue %+v", f)
				assert.False(t, page.More)
			}
		}
	}
}

func testNotAskedBy(t *testing.T, e *env) {
	ctx := context.Background()
	put := func(id, asker, askerUser string) {
		t.Helper()
		e.clock.Add(time.Millisecond)
		q := raw(id, "run-1", e.clock.Now())
		q.Asker, q.AskerUser = asker, askerUser
		_, _, err := e.store.CreateQuestion(ctx, q, nil, nil)
		require.NoError(t, err)
	}
	put("q_1", "slack:U0ME", "")
	put("q_2", "api:mine", "U0ME")
	put("q_3", "api:ci", "")
	put("q_4", "slack:U0OTHER", "")
	put("q_5", "api:theirs", "U0OTHER")
	for _, f := range []hitl.QuestionFilter{{}, {Status: hitl.StatusPending}, {Unassigned: true}, {RunID: "run-1"}} {
		f.NotAskedBy = "U0ME"
		assert.Equal(t, []string{"q_3", "q_4", "q_5"}, all(t, e.store, f, 2), "filter %+v", f)
	}
	page, err := e.store.Questions(ctx, hitl.QuestionFilter{Queue: []string{"U0NOBODY"}, Unassigned: true, NotAskedBy: "U0ME"})
	require.NoError(t, err)
	assert.Equal(t, []string{"q_3", "q_4", "q_5"}, ids(page.Questions), "a queue")
}

func testPageBounds(t *testing.T, e *env) {
	ctx := context.Background()
	const n = hitl.MaxPageSize + 1
	Parallel(t, n, func(i int) error {
		_, _, err := e.store.CreateQuestion(ctx, raw(fmt.Sprintf("q_%05d", i), "run-1", t0.Add(time.Duration(i)*time.Millisecond)), nil, nil)
		return err
	})
	for _, c := range []struct {
		limit, want int
	}{{0, hitl.DefaultPageSize}, {-1, hitl.DefaultPageSize}, {1, 1}, {hitl.MaxPageSize, hitl.MaxPageSize}, {hitl.MaxPageSize + 1, hitl.MaxPageSize}, {1 << 30, hitl.MaxPageSize}} {
		for _, f := range []hitl.QuestionFilter{{Limit: c.limit}, {Status: hitl.StatusPending, Limit: c.limit}, {RunID: "run-1", Limit: c.limit}} {
			page, err := e.store.Questions(ctx, f)
			require.NoError(t, err)
			assert.Len(t, page.Questions, c.want, "filter %+v", f)
			assert.NotEmpty(t, page.NextCursor, "more are left (filter %+v)", f)
		}
	}
	page, err := e.store.Questions(ctx, hitl.QuestionFilter{Queue: []string{"U0NOBODY"}, Unassigned: true, Limit: 1 << 30})
	require.NoError(t, err)
	assert.Len(t, page.Questions, hitl.MaxPageSize, "a queue too")
	assert.True(t, page.More)
}

// testPagingConcurrentIndexes pages through lists read from each index
// while questions are created and answered: every question that matched
// before paging began and still matches is seen exactly once, and none
// twice.
func testPagingConcurrentIndexes(t *testing.T, e *env) {
	ctx := context.Background()
	const before = 120
	Parallel(t, before, func(i int) error {
		q := raw(fmt.Sprintf("q_%05d", i), fmt.Sprintf("run-%d", i%2), t0.Add(time.Duration(i)*time.Millisecond))
		if i%3 == 0 {
			q.Assignees = []string{"U0ALICE"}
		}
		_, _, err := e.store.CreateQuestion(ctx, q, nil, nil)
		return err
	})
	filters := []hitl.QuestionFilter{{}, {Status: hitl.StatusPending}, {RunID: "run-0"}, {Asker: agent.ID}, {Assignee: "U0ALICE"},
		{Unassigned: true}, {Type: hitl.Blocking}, {Asker: agent.ID, Status: hitl.StatusPending}, {Reverse: true}, {RunID: "run-1", Reverse: true}}
	for k, f := range filters {
		var existing []string
		for i := range before {
			id := fmt.Sprintf("q_%05d", i)
			q, err := e.store.Question(ctx, id)
			require.NoError(t, err)
			if f.Match(q) {
				existing = append(existing, id)
			}
		}
		require.NotEmpty(t, existing)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range 60 {
				at := t0.Add(time.Hour + time.Duration(i)*time.Millisecond)
				if f.Reverse {
					at = t0.Add(-time.Hour + time.Duration(i)*time.Millisecond) // behind a reverse reader
				}
				q := raw(fmt.Sprintf("q_later_%02d_%03d", k, i), "run-0", at)
				if _, _, err := e.store.CreateQuestion(ctx, q, nil, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		seen := map[string]int{}
		for _, id := range all(t, e.store, f, 7) {
			seen[id]++
		}
		<-done
		for _, id := range existing {
			assert.Equal(t, 1, seen[id], "filter %+v: question %s existed before paging began: seen once", f, id)
		}
		for id, n := range seen {
			assert.Equal(t, 1, n, "filter %+v: question %s seen once", f, id)
		}
	}
}
