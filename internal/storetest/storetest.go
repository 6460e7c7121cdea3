// Package storetest is the contract of the store interfaces as one test
// suite, in one part per interface (QuestionStore, RunStore, EventStore,
// PolicyStore, RetentionStore, ReminderStore, SignInStore,
// EnvelopeStore, WebhookOutbox, Outbox, MailOutbox: part.go), each of
// which fails when a method of its interface goes uncalled. Run runs
// every part of hitl.Store. The bbolt store, PostgreSQL and the in-memory
// store all run every part.
package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// env is one store under test with a service over it.
type env struct {
	store hitl.Store
	svc   *service.Service
	clock *clocktest.Clock
}

// envWith puts a service configured by cfg over st, with a clock at t0 and
// question ids q_000001, q_000002, … in creation order.
func envWith(st hitl.Store, cfg service.ServiceConfig) *env {
	clock := clocktest.New(t0)
	var n atomic.Int64 // some tests create concurrently
	cfg.Notifier, cfg.Clock = notify.New(), clock
	cfg.NewID = func() string { return fmt.Sprintf("q_%06d", n.Add(1)) }
	return &env{store: st, clock: clock, svc: service.NewService(st, cfg)}
}

var (
	agent  = auth.TokenPrincipal("agent", nil, "")
	person = auth.TokenPrincipal("person", []auth.Scope{auth.ScopeAdmin}, "") // answers anything, assigned or not
	admin  = auth.TokenPrincipal("admin", []auth.Scope{auth.ScopeAdmin}, "")
)

func as(p auth.Principal) context.Context { return auth.WithPrincipal(context.Background(), p) }

// ask creates a question one millisecond after the previous one, so that
// creation order is time order (ties order differently per backend).
func (e *env) ask(t testing.TB, run string, n hitl.NewQuestion) *hitl.Question {
	t.Helper()
	e.clock.Add(time.Millisecond)
	q, _, err := e.svc.Questions.Create(as(agent), run, n)
	require.NoError(t, err)
	return q
}

func (e *env) answer(t testing.TB, id string, v any) *hitl.Question {
	t.Helper()
	e.clock.Add(time.Millisecond)
	q, err := e.svc.Questions.Answer(as(person), id, hitl.Response{Value: v})
	require.NoError(t, err)
	return q
}

func ids(qs []*hitl.Question) []string {
	out := []string{}
	for _, q := range qs {
		out = append(out, q.ID)
	}
	return out
}

func testPaging(t *testing.T, e *env) {
	var want []string
	for i := range 250 {
		want = append(want, e.ask(t, fmt.Sprintf("run-%d", i%3), hitl.NewQuestion{Question: "Q?"}).ID)
	}
	for _, f := range []hitl.QuestionFilter{{Status: hitl.StatusPending, Limit: 100}, {Limit: 7}, {Unassigned: true, Limit: 50}} {
		var got []string
		pages := 0
		for {
			page, err := e.store.Questions(context.Background(), f)
			require.NoError(t, err)
			got = append(got, ids(page.Questions)...)
			pages++
			if page.NextCursor == "" {
				break
			}
			f.Cursor = page.NextCursor
			require.Less(t, pages, 100, "paging ends")
		}
		assert.Equal(t, want, got, "every question once, oldest first (limit %d)", f.Limit)
	}
	t.Run("backwards", func(t *testing.T) {
		page, err := e.store.Questions(context.Background(), hitl.QuestionFilter{Status: hitl.StatusPending, Reverse: true, Limit: 3})
		require.NoError(t, err)
		assert.Equal(t, []string{want[249], want[248], want[247]}, ids(page.Questions))
		next, err := e.store.Questions(context.Background(), hitl.QuestionFilter{Status: hitl.StatusPending, Reverse: true, Limit: 2, Cursor: page.NextCursor})
		require.NoError(t, err)
		assert.Equal(t, []string{want[246], want[245]}, ids(next.Questions))
	})
	t.Run("a cursor of another list is refused", func(t *testing.T) {
		page, err := e.store.Questions(context.Background(), hitl.QuestionFilter{RunID: "run-1", Limit: 1})
		require.NoError(t, err)
		_, err = e.store.Questions(context.Background(), hitl.QuestionFilter{RunID: "run-2", Cursor: page.NextCursor})
		if err != nil {
			assert.Equal(t, fault.EINVALID, fault.Code(err))
		}
	})
}

func testPagingConcurrent(t *testing.T, e *env) {
	var before []string
	for range 300 {
		before = append(before, e.ask(t, "run", hitl.NewQuestion{Question: "Q?"}).ID)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wg.Go(func() {
		for range 200 {
			mu.Lock()
			e.clock.Add(time.Millisecond)
			mu.Unlock()
			_, _, err := e.svc.Questions.Create(as(agent), "run", hitl.NewQuestion{Question: "later?"})
			assert.NoError(t, err)
		}
	})
	seen := map[string]int{}
	f := hitl.QuestionFilter{Status: hitl.StatusPending, Limit: 40}
	for {
		page, err := e.store.Questions(context.Background(), f)
		require.NoError(t, err)
		for _, q := range page.Questions {
			seen[q.ID]++
		}
		if page.NextCursor == "" {
			break
		}
		f.Cursor = page.NextCursor
	}
	wg.Wait()
	for _, id := range before {
		assert.Equal(t, 1, seen[id], "question %s existed before paging began: seen exactly once", id)
	}
	for id, n := range seen {
		assert.Equal(t, 1, n, "question %s seen once", id)
	}
}

func testIndexes(t *testing.T, e *env) {
	ctx := context.Background()
	a := e.ask(t, "run-a", hitl.NewQuestion{Question: "A?", Assignees: []string{"U0ALICE"}})
	b := e.ask(t, "run-b", hitl.NewQuestion{Question: "B?", Assignees: []string{"U0ALICE", "S0OPS"}})
	c := e.ask(t, "run-a", hitl.NewQuestion{Question: "C?"})
	other, _, err := e.svc.Questions.Create(as(auth.TokenPrincipal("other", nil, "")), "run-c", hitl.NewQuestion{Question: "D?"})
	require.NoError(t, err)
	e.answer(t, c.ID, "x")
	e.answer(t, a.ID, "y")
	list := func(f hitl.QuestionFilter) []string {
		t.Helper()
		page, err := e.store.Questions(ctx, f)
		require.NoError(t, err)
		return ids(page.Questions)
	}
	assert.Equal(t, []string{b.ID}, list(hitl.QuestionFilter{Assignee: "U0ALICE"}), "assignee: pending only")
	assert.Equal(t, []string{b.ID}, list(hitl.QuestionFilter{Assignee: "S0OPS"}), "a user group is an assignee too")
	assert.Equal(t, []string{other.ID}, list(hitl.QuestionFilter{Unassigned: true}))
	assert.Equal(t, []string{c.ID, a.ID}, list(hitl.QuestionFilter{RespondedBy: person.ID}), "in the order answered")
	assert.Equal(t, []string{a.ID, c.ID}, list(hitl.QuestionFilter{RespondedBy: person.ID, Reverse: true}), "newest answer first")
	assert.Equal(t, []string{a.ID, c.ID}, list(hitl.QuestionFilter{RunID: "run-a"}))
	assert.Empty(t, list(hitl.QuestionFilter{RunID: "run-a", Assignee: "U0ALICE"}), "an answered question waits on nobody")
	assert.Equal(t, []string{a.ID, c.ID}, list(hitl.QuestionFilter{Asker: agent.ID, Status: hitl.StatusAnswered, Type: hitl.Blocking}))
	assert.Equal(t, []string{other.ID}, list(hitl.QuestionFilter{Asker: "api:other"}))
	assert.Equal(t, []string{a.ID, c.ID}, list(hitl.QuestionFilter{Status: hitl.StatusAnswered}))
	assert.Equal(t, []string{a.ID, b.ID, c.ID, other.ID}, list(hitl.QuestionFilter{}))
}

func testRuns(t *testing.T, e *env) {
	ctx := context.Background()
	_, err := e.store.Run(ctx, "run-1")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	nb := e.ask(t, "run-1", hitl.NewQuestion{Question: "Verbose?", Type: hitl.NonBlocking, ResponseType: hitl.BooleanResponse,
		DefaultResponse: &hitl.Response{Value: false}})
	input := e.ask(t, "run-1", hitl.NewQuestion{Question: "Which DB?"})
	approval := e.ask(t, "run-1", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
	run, err := e.store.Run(ctx, "run-1")
	require.NoError(t, err)
	assert.Equal(t, 3, run.Questions)
	assert.Equal(t, 3, run.Pending)
	assert.Equal(t, steer.RunWaitingForApproval, run.Status())
	require.NotNil(t, run.WaitingOn)
	assert.Equal(t, input.ID, run.WaitingOn.QuestionID, "the oldest question it waits on (not the non-blocking one)")
	assert.Equal(t, agent.ID, run.Asker)

	e.answer(t, input.ID, "pg")
	run, _ = e.store.Run(ctx, "run-1")
	assert.Equal(t, approval.ID, run.WaitingOn.QuestionID, "the next one")
	e.answer(t, approval.ID, "approve")
	run, _ = e.store.Run(ctx, "run-1")
	assert.Nil(t, run.WaitingOn)
	assert.Equal(t, steer.RunRunning, run.Status())
	assert.Equal(t, 1, run.Pending, "the non-blocking question is still open")
	evs, err := e.store.Events(ctx, 0, 0)
	require.NoError(t, err)
	last := evs[len(evs)-1]
	assert.Equal(t, hitl.EventQuestionAnswered, last.Type)
	assert.Equal(t, steer.RunRunning, last.Status, "each event carries the run's status after it")
	assert.Equal(t, steer.RunWaitingForApproval, evs[len(evs)-2].Status)
	_ = nb
}

func testKeys(t *testing.T, e *env) {
	ctx := context.Background()
	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", IdempotencyKey: "k"})
	got, err := e.store.QuestionByKey(ctx, "run-1", hitl.KeyOf(agent.ID, "k"))
	require.NoError(t, err)
	assert.Equal(t, q.ID, got.ID)
	_, err = e.store.QuestionByKey(ctx, "run-2", hitl.KeyOf(agent.ID, "k"))
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "keys belong to a run")
	_, err = e.store.QuestionByKey(ctx, "run-1", hitl.KeyOf("api:someone-else", "k"))
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "keys belong to their asker")
	again, created, err := e.store.CreateQuestion(ctx, &hitl.Question{ID: "q_other", RunID: "run-1", Question: "Q?", IdempotencyKey: "k", Asker: agent.ID,
		Status: hitl.StatusPending, Type: hitl.Blocking, ResponseType: hitl.TextResponse, CreatedAt: e.clock.Now()}, nil, nil)

	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, q, again, "the existing question, as stored")
	seq := lastSeq(t, e.store)
	_, created, err = e.store.CreateQuestion(ctx, &hitl.Question{ID: "q_again", RunID: "run-1", Question: "Q?", IdempotencyKey: "k", Asker: agent.ID,
		Status: hitl.StatusPending, Type: hitl.Blocking, ResponseType: hitl.TextResponse, CreatedAt: e.clock.Now()}, &hitl.Event{Type: hitl.EventQuestionAsked, QuestionID: "q_again", RunID: "run-1", At: e.clock.Now()}, nil)

	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, seq, lastSeq(t, e.store), "an existing key writes no event")
	_, err = e.store.Question(ctx, "q_again")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "nor a question")
	elsewhere := e.ask(t, "run-2", hitl.NewQuestion{Question: "Q?", IdempotencyKey: "k"})
	assert.NotEqual(t, q.ID, elsewhere.ID, "the same key in another run is its own")
	theirs, created, err := e.store.CreateQuestion(ctx, &hitl.Question{ID: "q_theirs", RunID: "run-1", Question: "Q?", IdempotencyKey: "k", Asker: "api:someone-else",
		Status: hitl.StatusPending, Type: hitl.Blocking, ResponseType: hitl.TextResponse, CreatedAt: e.clock.Now()}, nil, nil)

	require.NoError(t, err)
	assert.True(t, created, "another asker's same key is its own")
	assert.Equal(t, "q_theirs", theirs.ID)
	e.answer(t, q.ID, "x")
	_, err = e.svc.Questions.Receive(as(agent), q.ID)
	require.NoError(t, err)
	_, err = e.store.QuestionByKey(ctx, "run-1", hitl.KeyOf(agent.ID, "k"))
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "freed once received")
	got, err = e.store.QuestionByKey(ctx, "run-1", hitl.KeyOf("api:someone-else", "k"))
	require.NoError(t, err)
	assert.Equal(t, "q_theirs", got.ID, "and the other asker's still holds")
	next := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", IdempotencyKey: "k"})
	assert.NotEqual(t, q.ID, next.ID)
}

func testAtomicUpdate(t *testing.T, e *env) {
	ctx := context.Background()
	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?"})
	_, err := e.store.UpdateQuestion(ctx, q.ID, func(q *hitl.Question) (*hitl.Event, error) {
		q.Status = hitl.StatusCancelled
		return nil, fault.Errorf(fault.EFORBIDDEN, "no")
	})
	assert.Equal(t, fault.EFORBIDDEN, fault.Code(err), "fn's error is returned as it is")
	got, err := e.store.Question(ctx, q.ID)
	require.NoError(t, err)
	assert.True(t, got.Pending(), "and nothing is written")
	_, err = e.store.UpdateQuestion(ctx, "q_nope", func(*hitl.Question) (*hitl.Event, error) { return nil, nil })
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
}

func testPrune(t *testing.T, e *env) {
	ctx := context.Background()
	old := e.ask(t, "run-old", hitl.NewQuestion{Question: "old?"})
	e.answer(t, old.ID, "x")
	stillPending := e.ask(t, "run-old", hitl.NewQuestion{Question: "pending?"})
	e.clock.Add(48 * time.Hour)
	recent := e.ask(t, "run-new", hitl.NewQuestion{Question: "recent?"})
	e.answer(t, recent.ID, "y")

	_, err := e.svc.Questions.Prune(ctx, 24*time.Hour)
	require.NoError(t, err)
	_, err = e.store.Question(ctx, old.ID)
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "settled longer ago than retention: gone")
	_, err = e.store.Question(ctx, stillPending.ID)
	assert.NoError(t, err, "a pending question is never pruned, however old")
	_, err = e.store.Question(ctx, recent.ID)
	assert.NoError(t, err, "settled within retention: kept")
	run, err := e.store.Run(ctx, "run-old")
	require.NoError(t, err)
	assert.Equal(t, 1, run.Questions)
	evs, err := e.store.Events(ctx, 0, 0)
	require.NoError(t, err)
	for _, ev := range evs {
		assert.False(t, ev.At.Before(e.clock.Now().Add(-24*time.Hour)), "event %d is older than retention", ev.Seq)
	}
	page, err := e.store.Questions(ctx, hitl.QuestionFilter{RespondedBy: person.ID})
	require.NoError(t, err)
	assert.Equal(t, []string{recent.ID}, ids(page.Questions), "no index points at a pruned question")

	for _, id := range []string{"loop-ended", "loop-running"} {
		_, err := e.store.UpdateRun(ctx, id, func(*hitl.Run) (hitl.RunUpdate, error) {
			st := steer.RunDone
			if id == "loop-running" {
				st = steer.RunRunning
			}
			return hitl.RunUpdate{Run: &hitl.Run{ID: id, CreatedAt: e.clock.Now(), UpdatedAt: e.clock.Now(), Control: steer.RunControl{Status: st}}}, nil
		})
		require.NoError(t, err)
	}
	e.clock.Add(48 * time.Hour)
	_, err = e.svc.Questions.Prune(ctx, 24*time.Hour)
	require.NoError(t, err)
	_, err = e.store.Run(ctx, "loop-ended")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "a loop that only reported and ended goes after retention")
	_, err = e.store.Run(ctx, "loop-running")
	assert.NoError(t, err, "a running loop stays, however old")
	e.answer(t, stillPending.ID, "z")
	e.clock.Add(48 * time.Hour)
	_, err = e.svc.Questions.Prune(ctx, 24*time.Hour)
	require.NoError(t, err)
	_, err = e.store.Run(ctx, "run-old")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "a run with no question left goes too")
}

func testSealed(t *testing.T, e *env) {
	ctx := context.Background()
	q := e.ask(t, "run", hitl.NewQuestion{Question: "secret?", Sensitive: true})
	e.answer(t, q.ID, "hunter2")
	sealed, err := e.store.SealedQuestions(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{q.ID}, sealed)
	_, err = e.svc.Questions.Receive(as(agent), q.ID)
	require.NoError(t, err)
	sealed, err = e.store.SealedQuestions(ctx)
	require.NoError(t, err)
	assert.Empty(t, sealed)
	_ = admin
}

func testRunList(t *testing.T, e *env) {
	ctx := context.Background()
	for _, id := range []string{"b", "a", "c"} {
		_, err := e.store.UpdateRun(ctx, id, func(*hitl.Run) (hitl.RunUpdate, error) {
			st := steer.RunRunning
			if id == "c" {
				st = steer.RunDone
			}
			return hitl.RunUpdate{Run: &hitl.Run{ID: id, CreatedAt: e.clock.Now(), Control: steer.RunControl{Status: st}}}, nil
		})
		require.NoError(t, err)
	}
	e.ask(t, "d", hitl.NewQuestion{Question: "a run of questions only that waits on a person is open"})
	e.ask(t, "e", hitl.NewQuestion{Question: "one that does not wait (non_blocking) is not", Type: hitl.NonBlocking, DefaultResponse: &hitl.Response{Value: "go"}})
	answered := e.ask(t, "f", hitl.NewQuestion{Question: "nor one whose questions were answered"})
	e.answer(t, answered.ID, "done")
	open := func(limit int, cursor string) hitl.RunPage {
		t.Helper()
		page, err := e.store.Runs(ctx, true, limit, cursor)
		require.NoError(t, err)
		return page
	}
	page := open(1, "")
	require.Len(t, page.Runs, 1)
	assert.Equal(t, "a", page.Runs[0].ID)
	page = open(10, page.NextCursor)
	require.Len(t, page.Runs, 2)
	assert.Equal(t, "b", page.Runs[0].ID)
	assert.Equal(t, "d", page.Runs[1].ID, "the waiting run is listed")
	assert.Empty(t, page.NextCursor)
	e.answer(t, e.ask(t, "d", hitl.NewQuestion{Question: "a second one"}).ID, "x")
	assert.Len(t, open(10, "").Runs, 3, "d still waits on its first question")
	qs, err := e.store.Questions(ctx, hitl.QuestionFilter{RunID: "d", Status: hitl.StatusPending})
	require.NoError(t, err)
	require.Len(t, qs.Questions, 1)
	e.answer(t, qs.Questions[0].ID, "x")
	page = open(10, "")
	require.Len(t, page.Runs, 2, "answered, d is no longer open")
	assert.Equal(t, "b", page.Runs[1].ID)
	all, err := e.store.Runs(ctx, false, 10, "")
	require.NoError(t, err)
	var got []string
	for _, r := range all.Runs {
		got = append(got, r.ID)
	}
	assert.Equal(t, []string{"a", "b", "c", "d", "e", "f"}, got)
}

func testRunsByPrefix(t *testing.T, e *env) {
	ctx := context.Background()
	for _, id := range []string{"claude-3f2b8c1e", "claude-3f2b9d00", "claude-77aa", "claude", "claudf", "claud", "codex-1", "c:a/b@x.y_z-1"} {
		st := steer.RunRunning
		if id == "claude-3f2b9d00" {
			st = steer.RunDone
		}
		putRun(t, e.store, id, st)
	}
	ids := func(prefix string, limit int) []string {
		t.Helper()
		runs, err := e.store.RunsByPrefix(ctx, prefix, limit)
		require.NoError(t, err)
		got := []string{}
		for _, r := range runs {
			got = append(got, r.ID)
		}
		return got
	}
	for _, tc := range []struct {
		prefix string
		limit  int
		want   []string
	}{
		{"claude-3f2b", 10, []string{"claude-3f2b8c1e", "claude-3f2b9d00"}}, // an ended run too
		{"claude-3f2b8", 10, []string{"claude-3f2b8c1e"}},
		{"claude", 10, []string{"claude", "claude-3f2b8c1e", "claude-3f2b9d00", "claude-77aa"}}, // the run named so first
		{"claude", 2, []string{"claude", "claude-3f2b8c1e"}},                                    // up to the limit
		{"claud", 10, []string{"claud", "claude", "claude-3f2b8c1e", "claude-3f2b9d00", "claude-77aa", "claudf"}},
		{"c:a/b@x.y_", 10, []string{"c:a/b@x.y_z-1"}}, // every character a run id may hold
		{"c:a/b@x.y%", 10, []string{}},
		{"d", 10, []string{}},
		{"claude-3f2b8c1e-more", 10, []string{}},
	} {
		assert.Equal(t, tc.want, ids(tc.prefix, tc.limit), "prefix %q limit %d", tc.prefix, tc.limit)
	}
}

func testQueue(t *testing.T, e *env) {
	ctx := context.Background()
	mine := e.ask(t, "r", hitl.NewQuestion{Question: "mine?", Assignees: []string{"U0ME"}})
	group := e.ask(t, "r", hitl.NewQuestion{Question: "my group's?", Assignees: []string{"S0MINE"}})
	both := e.ask(t, "r", hitl.NewQuestion{Question: "both?", Assignees: []string{"U0ME", "S0MINE"}})
	open := e.ask(t, "r", hitl.NewQuestion{Question: "anyone's?"})
	e.ask(t, "r", hitl.NewQuestion{Question: "someone else's?", Assignees: []string{"U0OTHER"}})
	answered := e.ask(t, "r", hitl.NewQuestion{Question: "done?", Assignees: []string{"U0ME"}})
	e.answer(t, answered.ID, "x")
	page, err := e.store.Questions(ctx, hitl.QuestionFilter{Queue: []string{"U0ME", "S0MINE"}, Unassigned: true, Reverse: true})
	require.NoError(t, err)
	assert.Equal(t, []string{open.ID, both.ID, group.ID, mine.ID}, ids(page.Questions), "newest first, each once, pending only")
	assert.False(t, page.More)
	page, err = e.store.Questions(ctx, hitl.QuestionFilter{Queue: []string{"U0ME", "S0MINE"}, Reverse: true, Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, []string{both.ID, group.ID}, ids(page.Questions), "without Unassigned: assigned ones only")
	assert.True(t, page.More)
}
