package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const retention = 24 * time.Hour

// runRetention is the contract of Prune.
func runRetention(t *testing.T, newEnv func(*testing.T) *env) {
	t.Run("prune takes the longest-settled questions first, in batches up to its limit", func(t *testing.T) { testPruneBatches(t, newEnv(t)) })
	t.Run("prune keeps a question settled at or after before", func(t *testing.T) { testPruneBoundary(t, newEnv(t)) })
	t.Run("pruned events leave the log's numbering as it was", func(t *testing.T) { testPruneSeq(t, newEnv(t)) })
	t.Run("a running run keeps its record when its last question goes", func(t *testing.T) { testPruneKeepsRunningRun(t, newEnv(t)) })
	t.Run("a pruned question's idempotency key asks anew", func(t *testing.T) { testPruneFreesKey(t, newEnv(t)) })
	t.Run("a sensitive answer never received is pruned with its question", func(t *testing.T) { testPruneSealed(t, newEnv(t)) })
}

func count(t *testing.T, st hitl.Store, s hitl.Status) int {
	t.Helper()
	n, err := st.CountQuestions(context.Background(), s)
	require.NoError(t, err)
	return n
}

func testPruneBatches(t *testing.T, e *env) {
	ctx := context.Background()
	var settled []string
	for i := range 5 {
		q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?"})
		if i%2 == 0 {
			e.answer(t, q.ID, "x")
		} else {
			_, err := e.svc.Questions.Cancel(as(agent), q.ID, "not needed")
			require.NoError(t, err)
		}
		settled = append(settled, q.ID)
		e.clock.Add(time.Minute)
	}
	pending := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(24 * 60)})
	e.clock.Add(2 * retention)
	before := e.clock.Now().Add(-retention)

	n, err := e.store.Prune(ctx, before, 2)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "a full batch")
	for i, id := range settled {
		_, err := e.store.Question(ctx, id)
		if i < 2 {
			assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "question %d is pruned", i)
		} else {
			assert.NoError(t, err, "question %d waits for the next batch", i)
		}
	}
	run, err := e.store.Run(ctx, "run-1")
	require.NoError(t, err)
	assert.Equal(t, 4, run.Questions, "the run's count follows each batch")

	for batches := 1; ; batches++ {
		n, err := e.store.Prune(ctx, before, 2)
		require.NoError(t, err)
		assert.LessOrEqual(t, n, 2, "never more than the limit")
		if n < 2 {
			break
		}
		require.Less(t, batches, 20, "pruning ends")
	}
	for _, id := range settled {
		_, err := e.store.Question(ctx, id)
		assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	}
	assert.Empty(t, events(t, e.store, 0), "every event is older than retention")
	assert.Equal(t, 1, count(t, e.store, hitl.StatusPending))
	assert.Zero(t, count(t, e.store, hitl.StatusAnswered))
	assert.Zero(t, count(t, e.store, hitl.StatusCancelled))
	got, err := e.store.Question(ctx, pending.ID)
	require.NoError(t, err)
	assert.True(t, got.Pending(), "pending however old")
	run, err = e.store.Run(ctx, "run-1")
	require.NoError(t, err)
	assert.Equal(t, 1, run.Questions)
	assert.Equal(t, 1, run.Pending)
	page, err := e.store.Questions(ctx, hitl.QuestionFilter{RunID: "run-1"})
	require.NoError(t, err)
	assert.Equal(t, []string{pending.ID}, ids(page.Questions), "no index points at a pruned question")
	n, err = e.store.Prune(ctx, before, 2)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left to prune")
}

func testPruneBoundary(t *testing.T, e *env) {
	ctx := context.Background()
	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?"})
	settledAt := *e.answer(t, q.ID, "x").RespondedAt
	_, err := e.store.Prune(ctx, settledAt, 10)
	require.NoError(t, err)
	_, err = e.store.Question(ctx, q.ID)
	assert.NoError(t, err, "settled at before: kept")
	_, err = e.store.Prune(ctx, settledAt.Add(time.Millisecond), 10)
	require.NoError(t, err)
	_, err = e.store.Question(ctx, q.ID)
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "settled before before: pruned")
}

func testPruneSeq(t *testing.T, e *env) {
	ctx := context.Background()
	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?"})
	e.answer(t, q.ID, "x")
	last := lastSeq(t, e.store)
	e.clock.Add(2 * retention)
	_, err := e.svc.Questions.Prune(ctx, retention)
	require.NoError(t, err)
	assert.Empty(t, events(t, e.store, 0))
	assert.Equal(t, last, lastSeq(t, e.store), "LastSeq stays")
	next := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?"})
	evs := events(t, e.store, 0)
	require.Len(t, evs, 1)
	assert.Equal(t, next.ID, evs[0].QuestionID)
	assert.Greater(t, evs[0].Seq, last, "a reader's cursor never sees a number again")
}

func testPruneKeepsRunningRun(t *testing.T, e *env) {
	ctx := context.Background()
	q := e.ask(t, "run-live", hitl.NewQuestion{Question: "Q?"})
	e.answer(t, q.ID, "x")
	_, err := e.store.UpdateRun(ctx, "run-live", func(r *hitl.Run) (hitl.RunUpdate, error) {
		r.Control.Status = steer.RunRunning
		return hitl.RunUpdate{Run: r}, nil
	})
	require.NoError(t, err)
	e.clock.Add(2 * retention)
	_, err = e.svc.Questions.Prune(ctx, retention)
	require.NoError(t, err)
	_, err = e.store.Question(ctx, q.ID)
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	run, err := e.store.Run(ctx, "run-live")
	require.NoError(t, err)
	assert.Equal(t, steer.RunRunning, run.Control.Status)
	assert.Zero(t, run.Questions)
	page, err := e.store.Runs(ctx, true, 0, "")
	require.NoError(t, err)
	require.Len(t, page.Runs, 1, "still listed as active")
}

func testPruneFreesKey(t *testing.T, e *env) {
	n := hitl.NewQuestion{Question: "Which region?", IdempotencyKey: "region"}
	q := e.ask(t, "run-1", n)
	e.answer(t, q.ID, "eu")
	again, created, err := e.svc.Questions.Create(as(agent), "run-1", n)
	require.NoError(t, err)
	require.False(t, created, "within retention the key finds the answered question")
	assert.Equal(t, q.ID, again.ID)
	e.clock.Add(2 * retention)
	_, err = e.svc.Questions.Prune(context.Background(), retention)
	require.NoError(t, err)
	fresh, created, err := e.svc.Questions.Create(as(agent), "run-1", n)
	require.NoError(t, err)
	assert.True(t, created, "the key no longer points at a deleted question")
	assert.NotEqual(t, q.ID, fresh.ID)
}

func testPruneSealed(t *testing.T, e *env) {
	ctx := context.Background()
	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "API key?", Sensitive: true})
	e.answer(t, q.ID, "hunter2")
	e.clock.Add(2 * retention)
	_, err := e.svc.Questions.Prune(ctx, retention)
	require.NoError(t, err)
	sealed, err := e.store.SealedQuestions(ctx)
	require.NoError(t, err)
	assert.Empty(t, sealed, "a restart has nothing to reopen")
}
