package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runLists is the contract of the lists read by an index that fits them:
// a run's events, and questions by asker × status and by type.
// runEvents reads all of run's events after after, limit at a time, and
// checks that every read says how far it read.
func runEvents(t *testing.T, st hitl.Store, run string, after uint64, limit int) []*hitl.Event {
	t.Helper()
	ctx := context.Background()
	end, err := st.LastSeq(ctx)
	require.NoError(t, err)
	var out []*hitl.Event
	for reads := 0; ; reads++ {
		require.Less(t, reads, 1000, "the replay ends")
		evs, through, err := st.RunEvents(ctx, run, after, limit)
		require.NoError(t, err)
		if limit > 0 {
			require.LessOrEqual(t, len(evs), limit)
		}
		require.GreaterOrEqual(t, through, after)
		for _, ev := range evs {
			require.Greater(t, ev.Seq, after)
			require.LessOrEqual(t, ev.Seq, through, "no event returned lies beyond the read")
		}
		out = append(out, evs...)
		if through == after || through >= end && (limit <= 0 || len(evs) < limit) {
			return out
		}
		after = through
	}
}

func seqs(evs []*hitl.Event) []uint64 {
	out := []uint64{}
	for _, ev := range evs {
		out = append(out, ev.Seq)
	}
	return out
}

func testRunEvents(t *testing.T, e *env) {
	ctx := context.Background()
	for i := range 12 {
		q := e.ask(t, fmt.Sprintf("run-%d", i%3), hitl.NewQuestion{Question: "Q?"})
		if i%2 == 0 {
			e.answer(t, q.ID, "yes")
		}
	}
	require.NoError(t, e.store.AppendEvent(ctx, &hitl.Event{Type: hitl.EventRefused, At: e.clock.Now(), Actor: "api:x"}))
	all, err := e.store.Events(ctx, 0, 0)
	require.NoError(t, err)
	end, err := e.store.LastSeq(ctx)
	require.NoError(t, err)
	for _, run := range []string{"run-0", "run-1", "run-2"} {
		var want []*hitl.Event
		for _, ev := range all {
			if ev.RunID == run {
				want = append(want, ev)
			}
		}
		require.NotEmpty(t, want)
		assert.Equal(t, want, runEvents(t, e.store, run, 0, 0), "%s: every event of the run, in order, as the log holds it", run)
		assert.Equal(t, seqs(want), seqs(runEvents(t, e.store, run, 0, 2)), "%s: read two at a time", run)
		assert.Equal(t, seqs(want[2:]), seqs(runEvents(t, e.store, run, want[1].Seq, 3)), "%s: resumed after an event", run)

		evs, through, err := e.store.RunEvents(ctx, run, 0, 1)
		require.NoError(t, err)
		assert.Equal(t, seqs(want[:1]), seqs(evs))
		assert.Equal(t, want[0].Seq, through, "a read that stops at its limit has read up to its last event")
		evs, through, err = e.store.RunEvents(ctx, run, want[len(want)-1].Seq, 0)
		require.NoError(t, err)
		assert.Empty(t, evs)
		assert.Equal(t, end, through, "a read past the run's last event has read the whole log")
	}
	evs, through, err := e.store.RunEvents(ctx, "run-none", 0, 10)
	require.NoError(t, err)
	assert.Empty(t, evs)
	assert.Equal(t, end, through)
	evs, through, err = e.store.RunEvents(ctx, "run-0", end+5, 10)
	require.NoError(t, err)
	assert.Empty(t, evs)
	assert.Equal(t, end+5, through, "a read after the end of the log stays where it was asked to start")
}

func testRunEventsPruned(t *testing.T, e *env) {
	ctx := context.Background()
	old := e.ask(t, "run-a", hitl.NewQuestion{Question: "old?"})
	e.answer(t, old.ID, "x")
	e.clock.Add(48 * time.Hour)
	recent := e.ask(t, "run-a", hitl.NewQuestion{Question: "recent?"})
	_, err := e.svc.Questions.Prune(ctx, 24*time.Hour)
	require.NoError(t, err)
	evs := runEvents(t, e.store, "run-a", 0, 0)
	require.NotEmpty(t, evs)
	for _, ev := range evs {
		assert.Equal(t, recent.ID, ev.QuestionID, "only the event within retention is left")
	}
}

// testNoEmptyPage: 1,200 settled questions of one asker and type come
// before 3 pending approvals of the same asker; a list the index fits
// returns the 3 on its first page, and one it does not fit still never
// returns an empty page before them.
func testNoEmptyPage(t *testing.T, e *env) {
	ctx := context.Background()
	asker := auth.TokenPrincipal("asker", []auth.Scope{auth.ScopeAsk}, "")
	const settled = 1200
	Parallel(t, settled, func(int) error {
		q, _, err := e.svc.Questions.Create(as(asker), "run-bulk", hitl.NewQuestion{Question: "Old?", Type: hitl.Blocking})
		if err != nil {
			return err
		}
		_, err = e.svc.Questions.Answer(as(person), q.ID, hitl.Response{Value: "ok"})
		return err
	})
	e.clock.Add(time.Second)
	var want []string
	for range 3 {
		e.clock.Add(time.Millisecond)
		q, _, err := e.svc.Questions.Create(as(asker), "run-x", hitl.NewQuestion{Question: "Ship?", Type: hitl.Approval})
		require.NoError(t, err)
		want = append(want, q.ID)
	}
	for _, f := range []hitl.QuestionFilter{
		{Asker: asker.ID, Status: hitl.StatusPending, Limit: 10},
		{Type: hitl.Approval, Limit: 10},
		{Type: hitl.Approval, Status: hitl.StatusPending, Limit: 10},
		{Asker: asker.ID, Status: hitl.StatusPending, Type: hitl.Approval, Limit: 10},
	} {
		page, err := e.store.Questions(ctx, f)
		require.NoError(t, err)
		assert.Equal(t, want, ids(page.Questions), "%+v: the first page holds the matches", f)
		assert.Empty(t, page.NextCursor, "%+v: and ends the list", f)
	}
	t.Run("backwards, page by page", func(t *testing.T) {
		f := hitl.QuestionFilter{Asker: asker.ID, Status: hitl.StatusPending, Reverse: true, Limit: 2}
		page, err := e.store.Questions(ctx, f)
		require.NoError(t, err)
		assert.Equal(t, []string{want[2], want[1]}, ids(page.Questions))
		require.NotEmpty(t, page.NextCursor)
		f.Cursor = page.NextCursor
		page, err = e.store.Questions(ctx, f)
		require.NoError(t, err)
		assert.Equal(t, []string{want[0]}, ids(page.Questions))
	})
	t.Run("nothing matches: one empty page, no cursor", func(t *testing.T) {
		page, err := e.store.Questions(ctx, hitl.QuestionFilter{Type: hitl.Approval, Status: hitl.StatusAnswered})
		require.NoError(t, err)
		assert.Empty(t, page.Questions)
		assert.Empty(t, page.NextCursor)
	})
	t.Run("a filter the index does not fit pages without an empty page", func(t *testing.T) {
		f := hitl.QuestionFilter{Asker: asker.ID, Type: hitl.Approval, Limit: 10}
		var got []string
		for pages := 0; ; pages++ {
			require.Less(t, pages, 10, "paging ends")
			page, err := e.store.Questions(ctx, f)
			require.NoError(t, err)
			if page.NextCursor != "" {
				require.NotEmpty(t, page.Questions, "a page with a cursor holds a question")
			}
			got = append(got, ids(page.Questions)...)
			if page.NextCursor == "" {
				break
			}
			f.Cursor = page.NextCursor
		}
		assert.Equal(t, want, got)
	})
}
