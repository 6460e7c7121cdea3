package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runAnswers is the contract of concurrent writes to questions, as the
// lifecycle makes them: UpdateQuestion's atomicity is what makes the first
// answer win.
func runAnswers(t *testing.T, newEnv func(*testing.T) *env) {
	t.Run("the first answer wins and a later one gets a conflict naming the winner", func(t *testing.T) { testFirstAnswerWins(t, newEnv(t)) })
	t.Run("of 20 concurrent answers exactly one wins", func(t *testing.T) { testConcurrentAnswers(t, newEnv(t)) })
	t.Run("concurrent updates that fail leave the others' writes alone", func(t *testing.T) { testConcurrentFailingUpdates(t, newEnv(t)) })
	t.Run("a sensitive answer is scrubbed once received", func(t *testing.T) { testSensitiveScrubbed(t, newEnv(t)) })
}

func answerer(n int) auth.Principal {
	return auth.TokenPrincipal(fmt.Sprintf("answerer-%02d", n), []auth.Scope{auth.ScopeAdmin}, "")
}

func testFirstAnswerWins(t *testing.T, e *env) {
	ctx := context.Background()
	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Which DB?"})
	_, err := e.svc.Questions.Answer(as(answerer(1)), q.ID, hitl.Response{Value: "postgres"})
	require.NoError(t, err)
	_, err = e.svc.Questions.Answer(as(answerer(2)), q.ID, hitl.Response{Value: "mysql"})
	require.Equal(t, fault.ECONFLICT, fault.Code(err))
	var herr *fault.Error
	require.ErrorAs(t, err, &herr)
	assert.Equal(t, answerer(1).ID, herr.By)
	got, err := e.store.Question(ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, "postgres", got.Response.Value)
}

func testConcurrentAnswers(t *testing.T, e *env) {
	ctx := context.Background()
	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Which DB?"})
	before := lastSeq(t, e.store)
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = e.svc.Questions.Answer(as(answerer(i)), q.ID, hitl.Response{Value: fmt.Sprintf("answer %d", i)})
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch fault.Code(err) {
		case "":
			require.Equal(t, -1, winner, "two winners")
			winner = i
		case fault.ECONFLICT:
		default:
			t.Fatalf("answer %d: %v", i, err)
		}
	}
	require.NotEqual(t, -1, winner)
	got, err := e.store.Question(ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("answer %d", winner), got.Response.Value)
	assert.Equal(t, answerer(winner).ID, got.RespondedBy)
	for i, err := range errs {
		if i != winner {
			var herr *fault.Error
			require.ErrorAs(t, err, &herr)
			assert.Equal(t, got.RespondedBy, herr.By)
		}
	}
	evs := events(t, e.store, before)
	require.Len(t, evs, 1, "one answer event")
	assert.Equal(t, hitl.EventQuestionAnswered, evs[0].Type)
}

func testConcurrentFailingUpdates(t *testing.T, e *env) {
	ctx := context.Background()
	const n = 16
	qs := make([]*hitl.Question, n)
	for i := range qs {
		qs[i] = e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?"})
	}
	before := lastSeq(t, e.store)
	var wg sync.WaitGroup
	for i, q := range qs {
		wg.Go(func() {
			fail := fmt.Errorf("fn error %d", i)
			_, err := e.store.UpdateQuestion(ctx, q.ID, func(q *hitl.Question) (*hitl.Event, error) {
				q.Status, q.TimeoutAt = hitl.StatusCancelled, nil
				if i%2 == 1 {
					return nil, fail
				}
				return &hitl.Event{Type: hitl.EventQuestionCancelled, QuestionID: q.ID, RunID: q.RunID, At: t0}, nil
			})
			if i%2 == 1 {
				assert.Same(t, fail, err)
			} else {
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	for i, q := range qs {
		got, err := e.store.Question(ctx, q.ID)
		require.NoError(t, err)
		want := hitl.StatusCancelled
		if i%2 == 1 {
			want = hitl.StatusPending
		}
		assert.Equal(t, want, got.Status, "question %d", i)
	}
	assert.Len(t, events(t, e.store, before), n/2)
}

func testSensitiveScrubbed(t *testing.T, e *env) {
	ctx := context.Background()
	e.clock.Add(1)
	q, _, err := e.svc.Questions.Create(as(agent), "run-1", hitl.NewQuestion{Question: "Token?", InputType: hitl.PasswordInput})
	require.NoError(t, err)
	e.answer(t, q.ID, "s3cret")
	got, err := e.svc.Questions.Receive(as(agent), q.ID)
	require.NoError(t, err)
	assert.Equal(t, "s3cret", got.Response.Value)
	stored, err := e.store.Question(ctx, q.ID)
	require.NoError(t, err)
	assert.True(t, stored.Response.Redacted)
	assert.Nil(t, stored.Response.Value)
	_, err = e.svc.Questions.Receive(as(agent), q.ID)
	assert.Equal(t, fault.ECONFLICT, fault.Code(err), "received once")
}
