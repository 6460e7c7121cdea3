package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runDeadline is the contract of lists by deadline (QuestionFilter's
// ByDeadline): pending questions only, soonest deadline first, those that
// never time out last, ties by id, paged exactly.
func runDeadline(t *testing.T, newEnv func(*testing.T) *env) {
	t.Run("lists by deadline hold the pending matches, soonest first, never last", func(t *testing.T) { testDeadlineOrder(t, newEnv(t)) })
	t.Run("paging by deadline stays exact across concurrent inserts", func(t *testing.T) { testDeadlinePagingConcurrent(t, newEnv(t)) })
	t.Run("a question moves in the deadline lists when its deadline or state changes", func(t *testing.T) { testDeadlineMoves(t, newEnv(t)) })
}

// byDue orders questions as a list by deadline does.
func byDue(a, b *hitl.Question) int {
	switch {
	case a.TimeoutAt == nil && b.TimeoutAt == nil:
	case a.TimeoutAt == nil:
		return 1
	case b.TimeoutAt == nil:
		return -1
	default:
		if c := a.TimeoutAt.Compare(*b.TimeoutAt); c != 0 {
			return c
		}
	}
	return strings.Compare(a.ID, b.ID)
}

// wantByDeadline is what f lists, read from the questions themselves.
func wantByDeadline(t *testing.T, st hitl.Store, f hitl.QuestionFilter, qids []string) []string {
	t.Helper()
	var qs []*hitl.Question
	for _, id := range qids {
		q, err := st.Question(context.Background(), id)
		require.NoError(t, err)
		if f.Match(q) {
			qs = append(qs, q)
		}
	}
	slices.SortFunc(qs, byDue)
	if f.Reverse {
		slices.Reverse(qs)
	}
	return ids(qs)
}

// dueQuestion is a pending question created at t0 + i ms, timing out
// after the given minutes (never when negative).
func dueQuestion(id, job string, i int, minutes int, assignees ...string) *hitl.Question {
	q := raw(id, job, t0.Add(time.Duration(i)*time.Millisecond))
	if minutes >= 0 {
		at := t0.Add(time.Duration(minutes) * time.Minute)
		q.TimeoutAt = &at
	}
	q.Assignees = assignees
	return q
}

var dueAssignees = [][]string{nil, {"U0ME"}, {"S0MINE"}, {"U0ME", "S0MINE"}, {"U0OTHER"}}

func deadlineFilters() []hitl.QuestionFilter {
	fs := []hitl.QuestionFilter{
		{ByDeadline: true},
		{ByDeadline: true, Status: hitl.StatusPending},
		{ByDeadline: true, Assignee: "U0ME"},
		{ByDeadline: true, Unassigned: true},
		{ByDeadline: true, Queue: []string{"U0ME", "S0MINE"}, Unassigned: true},
		{ByDeadline: true, Queue: []string{"U0ME", "S0MINE"}},
		{ByDeadline: true, Queue: []string{"S0MINE"}, Unassigned: true, RunID: "run-1"},
		{ByDeadline: true, RunID: "run-1"},
		{ByDeadline: true, Type: hitl.Approval},
		{ByDeadline: true, Type: hitl.Blocking, Status: hitl.StatusPending},
		{ByDeadline: true, Unassigned: true, Type: hitl.Approval},
		{ByDeadline: true, RunID: "run-2", Type: hitl.Approval},
		{ByDeadline: true, RunID: "run-2", Reverse: true},
	}
	for _, f := range fs[:6] {
		f.Reverse = true
		fs = append(fs, f)
	}
	return fs
}

func testDeadlineOrder(t *testing.T, e *env) {
	ctx := context.Background()
	var qids []string
	for i := range 40 {
		minutes := (i * 7) % 13 // ties: ordered by id
		if i%4 == 0 {
			minutes = -1
		}
		q := dueQuestion(fmt.Sprintf("q_%03d", 40-i), fmt.Sprintf("run-%d", i%3), i, minutes, dueAssignees[i%len(dueAssignees)]...)
		if i%7 < 3 {
			q.Type, q.ResponseType = hitl.Approval, hitl.ApprovalResponse
		}
		_, _, err := e.store.CreateQuestion(ctx, q, nil, nil)
		require.NoError(t, err)
		qids = append(qids, q.ID)
		if i%6 == 5 {
			_, err := e.store.UpdateQuestion(ctx, q.ID, func(q *hitl.Question) (*hitl.Event, error) {
				at := t0.Add(time.Hour)
				q.Status, q.RespondedAt, q.RespondedBy, q.Response = hitl.StatusAnswered, &at, person.ID, &hitl.Response{Value: "ok"}
				return nil, nil
			})
			require.NoError(t, err)
		}
	}
	for _, f := range deadlineFilters() {
		want := wantByDeadline(t, e.store, f, qids)
		require.NotEmpty(t, want, "%+v", f)
		page, err := e.store.Questions(ctx, hitl.QuestionFilter{ByDeadline: f.ByDeadline, Status: f.Status, Assignee: f.Assignee, Unassigned: f.Unassigned,
			Queue: f.Queue, RunID: f.RunID, Type: f.Type, Reverse: f.Reverse, Limit: 100})
		require.NoError(t, err)
		assert.Equal(t, want, ids(page.Questions), "%+v: one page", f)
		assert.Empty(t, page.NextCursor, "%+v: one page ends the list", f)
		assert.False(t, page.More, "%+v", f)
		assert.Equal(t, want, all(t, e.store, f, 3), "%+v: three at a time", f)
		for _, q := range page.Questions {
			assert.True(t, q.Pending(), "%+v: pending only", f)
		}
		if !f.Reverse && slices.ContainsFunc(page.Questions, func(q *hitl.Question) bool { return q.TimeoutAt == nil }) {
			last := page.Questions[len(page.Questions)-1]
			assert.Nil(t, last.TimeoutAt, "%+v: questions that never time out come last", f)
		}
	}
	first, err := e.store.Questions(ctx, hitl.QuestionFilter{ByDeadline: true, Queue: []string{"U0ME"}, Limit: 2})
	require.NoError(t, err)
	assert.True(t, first.More, "a queue by deadline says it holds more")
	assert.NotEmpty(t, first.NextCursor)
}

// testDeadlinePagingConcurrent pages through lists by deadline with
// pages of 7 while questions with deadlines all over the list are
// created: every question that existed before paging began is seen
// exactly once, and none twice.
func testDeadlinePagingConcurrent(t *testing.T, e *env) {
	ctx := context.Background()
	const before = 120
	var qids []string
	Parallel(t, before, func(i int) error {
		minutes := i * 37 % 90
		if i%11 == 0 {
			minutes = -1
		}
		var who []string
		if i%3 == 0 {
			who = []string{"U0ALICE"}
		}
		_, _, err := e.store.CreateQuestion(ctx, dueQuestion(fmt.Sprintf("q_%05d", i), "run-0", i, minutes, who...), nil, nil)
		return err
	})
	for i := range before {
		qids = append(qids, fmt.Sprintf("q_%05d", i))
	}
	filters := []hitl.QuestionFilter{{ByDeadline: true}, {ByDeadline: true, Reverse: true}, {ByDeadline: true, Assignee: "U0ALICE"},
		{ByDeadline: true, Unassigned: true}, {ByDeadline: true, Queue: []string{"U0ALICE"}, Unassigned: true},
		{ByDeadline: true, Queue: []string{"U0ALICE", "S0NONE"}, Reverse: true}}
	for k, f := range filters {
		existing := wantByDeadline(t, e.store, f, qids)
		require.NotEmpty(t, existing)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range 60 {
				minutes := (i * 53) % 95
				q := dueQuestion(fmt.Sprintf("q_later_%02d_%03d", k, i), "run-0", before+i, minutes)
				if i%2 == 0 {
					q.Assignees = []string{"U0ALICE"}
				}
				if _, _, err := e.store.CreateQuestion(ctx, q, nil, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		seen := map[string]int{}
		got := all(t, e.store, f, 7)
		for _, id := range got {
			seen[id]++
		}
		<-done
		for _, id := range existing {
			assert.Equal(t, 1, seen[id], "filter %+v: question %s existed before paging began: seen once", f, id)
		}
		for id, n := range seen {
			assert.Equal(t, 1, n, "filter %+v: question %s seen once", f, id)
		}
		var read []*hitl.Question
		for _, id := range got {
			q, err := e.store.Question(ctx, id)
			require.NoError(t, err)
			read = append(read, q)
		}
		assert.True(t, slices.IsSortedFunc(read, func(a, b *hitl.Question) int {
			if f.Reverse {
				return byDue(b, a)
			}
			return byDue(a, b)
		}), "filter %+v: read in deadline order", f)
	}
}

func testDeadlineMoves(t *testing.T, e *env) {
	ctx := context.Background()
	a := dueQuestion("q_a", "run-1", 1, 10, "U0ME")
	b := dueQuestion("q_b", "run-1", 2, 20, "U0ME")
	c := dueQuestion("q_c", "run-1", 3, -1)
	for _, q := range []*hitl.Question{a, b, c} {
		_, _, err := e.store.CreateQuestion(ctx, q, nil, nil)
		require.NoError(t, err)
	}
	list := func(f hitl.QuestionFilter) []string {
		t.Helper()
		page, err := e.store.Questions(ctx, f)
		require.NoError(t, err)
		return ids(page.Questions)
	}
	queue := hitl.QuestionFilter{ByDeadline: true, Queue: []string{"U0ME"}, Unassigned: true}
	require.Equal(t, []string{"q_a", "q_b", "q_c"}, list(queue))
	_, err := e.store.UpdateQuestion(ctx, "q_a", func(q *hitl.Question) (*hitl.Event, error) {
		at := t0.Add(30 * time.Minute)
		q.TimeoutAt = &at
		return nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"q_b", "q_a", "q_c"}, list(queue), "a later deadline moves it down")
	assert.Equal(t, []string{"q_b", "q_a", "q_c"}, list(hitl.QuestionFilter{ByDeadline: true}))
	_, err = e.store.UpdateQuestion(ctx, "q_b", func(q *hitl.Question) (*hitl.Event, error) {
		q.Assignees = nil
		return nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"q_a"}, list(hitl.QuestionFilter{ByDeadline: true, Assignee: "U0ME"}), "unassigned: off the assignee's list")
	assert.Equal(t, []string{"q_b", "q_c"}, list(hitl.QuestionFilter{ByDeadline: true, Unassigned: true}), "and on the unassigned one")
	_, err = e.store.UpdateQuestion(ctx, "q_b", func(q *hitl.Question) (*hitl.Event, error) {
		at := t0.Add(time.Minute)
		q.Status, q.RespondedAt, q.RespondedBy, q.Response, q.TimeoutAt = hitl.StatusAnswered, &at, person.ID, &hitl.Response{Value: "ok"}, nil
		return nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"q_a", "q_c"}, list(queue), "settled: off every list by deadline")
	assert.Equal(t, []string{"q_a", "q_c"}, list(hitl.QuestionFilter{ByDeadline: true}))
}
