package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runStats is the contract of what metrics and stats read: the pending
// count by type (with the log position it was counted at) and the
// questions settled since a time.
func runStats(t *testing.T, newEnv func(*testing.T) *env) {
	t.Run("pending questions are counted by type, at a log position", func(t *testing.T) { testPendingByType(t, newEnv(t)) })
	t.Run("settled questions are listed from a time, in settle order", func(t *testing.T) { testSettledSince(t, newEnv(t)) })
}

func testPendingByType(t *testing.T, e *env) {
	ctx := context.Background()
	counts, seq, err := e.store.PendingByType(ctx)
	require.NoError(t, err)
	assert.Empty(t, counts, "an empty store has nothing pending")
	assert.Zero(t, seq)

	b1 := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?"})
	e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?"})
	a1 := e.ask(t, "run-2", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
	e.ask(t, "run-2", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
	e.ask(t, "run-3", hitl.NewQuestion{Question: "Stuck", Type: hitl.ErrorRecovery})
	e.answer(t, b1.ID, "yes")
	_, err = e.svc.Questions.Cancel(as(agent), a1.ID, "not needed")
	require.NoError(t, err)

	counts, seq, err = e.store.PendingByType(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[hitl.QuestionType]int{hitl.Blocking: 1, hitl.Approval: 1, hitl.ErrorRecovery: 1}, counts,
		"settled questions are not counted; types with none are left out")
	last, err := e.store.LastSeq(ctx)
	require.NoError(t, err)
	assert.Equal(t, last, seq, "the position is the last event's")

	e.clock.Add(time.Hour)
	_, err = e.svc.Questions.SweepExpired(ctx)
	require.NoError(t, err)
	counts, _, err = e.store.PendingByType(ctx)
	require.NoError(t, err)
	assert.Empty(t, counts, "timed-out questions are no longer pending")
}

func testSettledSince(t *testing.T, e *env) {
	ctx := context.Background()
	var qs []*hitl.Question
	for range 7 {
		qs = append(qs, e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?"}))
	}
	pending := e.ask(t, "run-1", hitl.NewQuestion{Question: "still waiting"})
	// Settled in another order than asked: 3, 0, 5, 1, 6, 2 (4 stays pending).
	var settledAt []time.Time
	for _, i := range []int{3, 0, 5, 1, 6, 2} {
		q := e.answer(t, qs[i].ID, "ok")
		settledAt = append(settledAt, *q.RespondedAt)
	}
	list := func(since time.Time, limit int) []string {
		t.Helper()
		var got []string
		cursor := ""
		for {
			page, err := e.store.SettledQuestions(ctx, since, limit, cursor)
			require.NoError(t, err)
			require.LessOrEqual(t, len(page.Questions), limit)
			for _, q := range page.Questions {
				require.NotNil(t, q.RespondedAt)
				assert.False(t, q.RespondedAt.Before(since), "settled before since: %s", q.ID)
			}
			got = append(got, ids(page.Questions)...)
			if page.NextCursor == "" {
				return got
			}
			cursor = page.NextCursor
		}
	}
	all := []string{qs[3].ID, qs[0].ID, qs[5].ID, qs[1].ID, qs[6].ID, qs[2].ID}
	assert.Equal(t, all, list(time.Time{}, 100), "in settle order; pending ones are not listed")
	assert.Equal(t, all, list(time.Time{}, 2), "pages of two read the same list")
	assert.Equal(t, all[2:], list(settledAt[2], 100), "a settle time equal to since is in")
	assert.Equal(t, all[3:], list(settledAt[2].Add(time.Nanosecond), 4), "one just before since is not")
	assert.Empty(t, list(e.clock.Now().Add(time.Second), 10), "nothing settled after now")
	assert.NotContains(t, list(time.Time{}, 100), pending.ID)

	_, err := e.store.SettledQuestions(ctx, time.Time{}, 10, "not-a-cursor!")
	assert.Equal(t, fault.EINVALID, fault.Code(err), "a cursor of no page is refused")
}
