package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runQuestions is the contract of the methods that write and read
// questions one by one, and of the event log they append to.
func runQuestions(t *testing.T, newEnv func(*testing.T) *env) {
	t.Run("a created question reads back equal, with its event numbered", func(t *testing.T) { testCreateReadsBack(t, newEnv(t)) })
	t.Run("a taken id is a conflict and writes nothing", func(t *testing.T) { testCreateTakenID(t, newEnv(t)) })
	t.Run("concurrent creates with one key create exactly one question", func(t *testing.T) { testCreateConcurrentKey(t, newEnv(t)) })
	t.Run("admit decides on the run in the create's transaction", func(t *testing.T) { testCreateAdmit(t, newEnv(t)) })
	t.Run("of askers starting one run at once, one owns it", func(t *testing.T) { testCreateAdmitRace(t, newEnv(t)) })
	t.Run("a question read is the caller's own copy", func(t *testing.T) { testQuestionCopy(t, newEnv(t)) })
	t.Run("an update writes the question and fn's event", func(t *testing.T) { testUpdateWrites(t, newEnv(t)) })
	t.Run("an unknown id is not found and fn is not called", func(t *testing.T) { testUpdateUnknown(t, newEnv(t)) })
	t.Run("concurrent updates of one question lose none", func(t *testing.T) { testUpdateConcurrent(t, newEnv(t)) })
	t.Run("a batch update reports each question's error and writes the rest", func(t *testing.T) { testUpdateQuestions(t, newEnv(t)) })
	t.Run("questions are counted by status", func(t *testing.T) { testCount(t, newEnv(t)) })
	t.Run("the lifecycle's events come in order with their actor and answer", func(t *testing.T) { testLifecycleEvents(t, newEnv(t)) })
}

// raw is a pending text question of agent's in job, created at at.
func raw(id, job string, at time.Time) *hitl.Question {
	return &hitl.Question{ID: id, RunID: job, Question: "Q?", Asker: agent.ID, Status: hitl.StatusPending,
		Type: hitl.Blocking, ResponseType: hitl.TextResponse, CreatedAt: at}
}

func lastSeq(t *testing.T, st hitl.Store) uint64 {
	t.Helper()
	n, err := st.LastSeq(context.Background())
	require.NoError(t, err)
	return n
}

func events(t *testing.T, st hitl.Store, after uint64) []*hitl.Event {
	t.Helper()
	evs, err := st.Events(context.Background(), after, 0)
	require.NoError(t, err)
	return evs
}

func testCreateReadsBack(t *testing.T, e *env) {
	ctx := context.Background()
	assert.Zero(t, lastSeq(t, e.store), "an empty log")
	q, created, err := e.svc.Questions.Create(as(agent), "run-1", hitl.NewQuestion{
		Question:        "Deploy?",
		Options:         []hitl.Option{{Label: "Yes", Value: "yes"}, {Label: "No", Value: "no"}},
		DefaultResponse: &hitl.Response{Value: "no"},
		Context:         &hitl.QuestionContext{Agent: "release-bot"},
		Assignees:       []string{"U024BE7LH"},
	})
	require.NoError(t, err)
	require.True(t, created)
	got, err := e.store.Question(ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, q, got)
	evs := events(t, e.store, 0)
	require.Len(t, evs, 1)
	assert.NotZero(t, evs[0].Seq)
	assert.Equal(t, evs[0].Seq, lastSeq(t, e.store))
	assert.Equal(t, hitl.EventQuestionAsked, evs[0].Type)
	assert.Equal(t, q, evs[0].Question)

	ev := &hitl.Event{Type: hitl.EventQuestionAsked, QuestionID: "q_raw", RunID: "run-1", At: t0}
	stored, created, err := e.store.CreateQuestion(ctx, raw("q_raw", "run-1", t0), ev, nil)
	require.NoError(t, err)
	assert.True(t, created)
	assert.Equal(t, "q_raw", stored.ID)
	assert.Equal(t, evs[0].Seq+1, ev.Seq, "CreateQuestion sets its event's Seq, the next one")
}

func testCreateTakenID(t *testing.T, e *env) {
	ctx := context.Background()
	_, _, err := e.store.CreateQuestion(ctx, raw("q_1", "run-1", t0), nil, nil)
	require.NoError(t, err)
	other := raw("q_1", "run-2", t0.Add(time.Second))
	other.Question = "another"
	_, _, err = e.store.CreateQuestion(ctx, other, &hitl.Event{Type: hitl.EventQuestionAsked, QuestionID: "q_1", RunID: "run-2", At: t0}, nil)
	assert.Equal(t, fault.ECONFLICT, fault.Code(err))
	got, err := e.store.Question(ctx, "q_1")
	require.NoError(t, err)
	assert.Equal(t, "Q?", got.Question, "the first question stays")
	assert.Empty(t, events(t, e.store, 0), "no event")
	_, err = e.store.Run(ctx, "run-2")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "no run")
}

func testCreateConcurrentKey(t *testing.T, e *env) {
	ctx := context.Background()
	const callers = 10
	got := make([]*hitl.Question, callers)
	created := make([]bool, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			q := raw(fmt.Sprintf("q_%02d", i), "run-1", t0)
			q.IdempotencyKey = "k"
			var err error
			got[i], created[i], err = e.store.CreateQuestion(ctx, q, &hitl.Event{Type: hitl.EventQuestionAsked, QuestionID: q.ID, RunID: "run-1", At: t0}, nil)

			assert.NoError(t, err)
		})
	}
	wg.Wait()
	n := 0
	for i := range callers {
		require.NotNil(t, got[i])
		assert.Equal(t, got[0].ID, got[i].ID, "every caller gets the one question")
		if created[i] {
			n++
		}
	}
	assert.Equal(t, 1, n, "one created")
	assert.Len(t, events(t, e.store, 0), 1, "one event")
	page, err := e.store.Questions(ctx, hitl.QuestionFilter{})
	require.NoError(t, err)
	assert.Equal(t, []string{got[0].ID}, ids(page.Questions))
}

func testQuestionCopy(t *testing.T, e *env) {
	ctx := context.Background()
	_, err := e.store.Question(ctx, "q_nope")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "an unknown id")
	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", Assignees: []string{"U0ALICE"}})
	got, err := e.store.Question(ctx, q.ID)
	require.NoError(t, err)
	got.Question = "changed by the caller"
	got.Assignees[0] = "U0BOB"
	again, err := e.store.Question(ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, q, again)
}

func testUpdateWrites(t *testing.T, e *env) {
	ctx := context.Background()
	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?"})
	before := lastSeq(t, e.store)

	want := errors.New("refused by fn")
	_, err := e.store.UpdateQuestion(ctx, q.ID, func(q *hitl.Question) (*hitl.Event, error) {
		q.Status, q.TimeoutAt = hitl.StatusCancelled, nil
		return &hitl.Event{Type: hitl.EventQuestionCancelled, QuestionID: q.ID, RunID: q.RunID, At: t0}, want
	})
	assert.Same(t, want, err, "fn's error is returned as it is")
	got, err := e.store.Question(ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, q, got, "and nothing is written")
	assert.Equal(t, before, lastSeq(t, e.store), "not its event either")
	count, err := e.store.CountQuestions(ctx, hitl.StatusCancelled)
	require.NoError(t, err)
	assert.Zero(t, count)

	var ev *hitl.Event
	updated, err := e.store.UpdateQuestion(ctx, q.ID, func(q *hitl.Question) (*hitl.Event, error) {
		q.Status, q.TimeoutAt = hitl.StatusCancelled, nil
		at := t0
		q.RespondedAt = &at
		ev = &hitl.Event{Type: hitl.EventQuestionCancelled, QuestionID: q.ID, RunID: q.RunID, At: t0}
		return ev, nil
	})
	require.NoError(t, err)
	assert.Equal(t, hitl.StatusCancelled, updated.Status, "the question as stored")
	got, err = e.store.Question(ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, updated, got)
	evs := events(t, e.store, before)
	require.Len(t, evs, 1)
	assert.Equal(t, hitl.EventQuestionCancelled, evs[0].Type)
	assert.Equal(t, evs[0].Seq, lastSeq(t, e.store))

	_, err = e.store.UpdateQuestion(ctx, q.ID, func(q *hitl.Question) (*hitl.Event, error) {
		q.Question = "reworded"
		return nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, evs[0].Seq, lastSeq(t, e.store), "no event when fn returns none")
	got, err = e.store.Question(ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, "reworded", got.Question)
}

func testUpdateUnknown(t *testing.T, e *env) {
	ctx := context.Background()
	_, err := e.store.UpdateQuestion(ctx, "q_nope", func(*hitl.Question) (*hitl.Event, error) {
		t.Error("fn called for an unknown id")
		return nil, nil
	})
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	assert.Zero(t, lastSeq(t, e.store))
}

func testUpdateConcurrent(t *testing.T, e *env) {
	ctx := context.Background()
	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?"})
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := e.store.UpdateQuestion(ctx, q.ID, func(q *hitl.Question) (*hitl.Event, error) {
				q.Assignees = append(q.Assignees, fmt.Sprintf("U%02d", i))
				return nil, nil
			})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	got, err := e.store.Question(ctx, q.ID)
	require.NoError(t, err)
	assert.Len(t, got.Assignees, n, "each update read the one before it")
	page, err := e.store.Questions(ctx, hitl.QuestionFilter{Assignee: "U07"})
	require.NoError(t, err)
	assert.Equal(t, []string{q.ID}, ids(page.Questions), "the assignee index follows an update")
}

func testUpdateQuestions(t *testing.T, e *env) {
	ctx := context.Background()
	a := e.ask(t, "run-1", hitl.NewQuestion{Question: "a?"})
	b := e.ask(t, "run-1", hitl.NewQuestion{Question: "b?"})
	c := e.ask(t, "run-2", hitl.NewQuestion{Question: "c?"})
	before := lastSeq(t, e.store)
	refused := errors.New("refused by fn")
	updated, errs, err := e.store.UpdateQuestions(ctx, []string{a.ID, "q_nope", b.ID, c.ID}, func(q *hitl.Question) (*hitl.Event, error) {
		q.Status, q.TimeoutAt = hitl.StatusCancelled, nil
		at := t0
		q.RespondedAt = &at
		if q.Question == "b?" {
			return nil, refused
		}
		return &hitl.Event{Type: hitl.EventQuestionCancelled, QuestionID: q.ID, RunID: q.RunID, At: t0}, nil
	})
	require.NoError(t, err)
	require.Len(t, updated, 4)
	require.Len(t, errs, 4)
	assert.NoError(t, errs[0])
	assert.Equal(t, fault.ENOTFOUND, fault.Code(errs[1]), "an unknown id is reported at its index")
	assert.Same(t, refused, errs[2], "fn's error is reported at its index")
	assert.NoError(t, errs[3])
	require.NotNil(t, updated[0])
	require.NotNil(t, updated[3])
	assert.Equal(t, hitl.StatusCancelled, updated[0].Status)
	assert.Equal(t, hitl.StatusCancelled, updated[3].Status)

	for id, want := range map[string]hitl.Status{a.ID: hitl.StatusCancelled, b.ID: hitl.StatusPending, c.ID: hitl.StatusCancelled} {
		got, err := e.store.Question(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, want, got.Status, "question %s", id)
	}
	var got []string
	for _, ev := range events(t, e.store, before) {
		got = append(got, ev.QuestionID)
	}
	assert.Equal(t, []string{a.ID, c.ID}, got, "the written questions' events, in the order of ids")

	updated, errs, err = e.store.UpdateQuestions(ctx, nil, func(*hitl.Question) (*hitl.Event, error) {
		t.Error("fn called with no ids")
		return nil, nil
	})
	require.NoError(t, err, "no ids: nothing to do")
	assert.Empty(t, updated)
	assert.Empty(t, errs)
}

func testEventLog(t *testing.T, e *env) {
	ctx := context.Background()
	assert.Empty(t, events(t, e.store, 0), "an empty log")
	var appended []*hitl.Event
	for i := range 5 {
		ev := &hitl.Event{Type: hitl.EventRefused, RunID: "run-1", At: t0.Add(time.Duration(i) * time.Second),
			Actor: agent.ID, Action: auth.ActionAsk, Reason: fmt.Sprintf("reason %d", i), Count: i + 1}
		require.NoError(t, e.store.AppendEvent(ctx, ev))
		assert.Equal(t, ev.Seq, lastSeq(t, e.store), "AppendEvent sets Seq to the last")
		if i > 0 {
			assert.Greater(t, ev.Seq, appended[i-1].Seq)
		}
		appended = append(appended, ev)
	}
	all := events(t, e.store, 0)
	require.Len(t, all, 5)
	for i, ev := range all {
		want := *appended[i]
		want.At = ev.At // compared below by instant
		assert.Equal(t, &want, ev, "read back as appended")
		assert.True(t, appended[i].At.Equal(ev.At))
	}
	page, err := e.store.Events(ctx, all[1].Seq, 2)
	require.NoError(t, err)
	require.Len(t, page, 2, "limit bounds the page")
	assert.Equal(t, []uint64{all[2].Seq, all[3].Seq}, []uint64{page[0].Seq, page[1].Seq}, "after skips what was read")
	for _, after := range []uint64{all[4].Seq, all[4].Seq + 1, ^uint64(0)} {
		evs, err := e.store.Events(ctx, after, 10)
		require.NoError(t, err)
		assert.Empty(t, evs, "nothing after the last (after %d)", after)
	}
}

func testCount(t *testing.T, e *env) {
	ctx := context.Background()
	count := func(s hitl.Status) int {
		t.Helper()
		n, err := e.store.CountQuestions(ctx, s)
		require.NoError(t, err)
		return n
	}
	for _, s := range []hitl.Status{hitl.StatusPending, hitl.StatusAnswered, hitl.StatusCancelled, hitl.StatusTimeout} {
		assert.Zero(t, count(s), "none %s yet", s)
	}
	var qs []*hitl.Question
	for range 5 {
		qs = append(qs, e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?"}))
	}
	e.answer(t, qs[0].ID, "x")
	e.answer(t, qs[1].ID, "y")
	_, err := e.svc.Questions.Cancel(as(agent), qs[2].ID, "")
	require.NoError(t, err)
	assert.Equal(t, 2, count(hitl.StatusPending))
	assert.Equal(t, 2, count(hitl.StatusAnswered))
	assert.Equal(t, 1, count(hitl.StatusCancelled))
	assert.Zero(t, count(hitl.StatusTimeout))
}

func testLifecycleEvents(t *testing.T, e *env) {
	q1 := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q1?"})
	q2 := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q2?"})
	q3 := e.ask(t, "run-2", hitl.NewQuestion{Question: "Q3?"})
	e.answer(t, q2.ID, "yes")
	_, err := e.svc.Questions.Cancel(as(admin), q1.ID, "")
	require.NoError(t, err)
	type entry struct {
		Type hitl.EventType
		ID   string
	}
	var got []entry
	evs := events(t, e.store, 0)
	for i, ev := range evs {
		got = append(got, entry{ev.Type, ev.QuestionID})
		if i > 0 {
			assert.Greater(t, ev.Seq, evs[i-1].Seq, "in sequence order")
		}
	}
	assert.Equal(t, []entry{
		{hitl.EventQuestionAsked, q1.ID}, {hitl.EventQuestionAsked, q2.ID}, {hitl.EventQuestionAsked, q3.ID},
		{hitl.EventQuestionAnswered, q2.ID}, {hitl.EventQuestionCancelled, q1.ID},
	}, got)
	require.Len(t, evs, 5)
	assert.Equal(t, person.ID, evs[3].Actor, "the answer names who answered")
	require.NotNil(t, evs[3].Response)
	assert.Equal(t, "yes", evs[3].Response.Value)
	assert.Equal(t, agent.ID, evs[3].Asker, "and who asked")
}
