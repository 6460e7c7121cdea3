package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/stretchr/testify/require"
)

func TestCreateQuestion(t *testing.T) {
	ctx := context.Background()

	t.Run("created question reads back equal with its event", func(t *testing.T) {
		db := openTestDB(t)
		svc := newService(db, newClock())
		q, created, err := svc.Create(as("api:agent"), "job-1", hitl.NewQuestion{
			Question:        "Deploy?",
			Options:         []hitl.Option{{Label: "Yes", Value: "yes"}, {Label: "No", Value: "no"}},
			DefaultResponse: &hitl.Response{Value: "no"},
			Context:         &hitl.Context{Agent: "release-bot"},
			Assignees:       []string{"U024BE7LH"},
		})
		require.NoError(t, err)
		require.True(t, created)

		got, err := db.Question(ctx, q.ID)
		require.NoError(t, err)
		require.Equal(t, q, got)
		evs, err := db.Events(ctx, 0, 0)
		require.NoError(t, err)
		require.Len(t, evs, 1)
		require.Equal(t, uint64(1), evs[0].Seq)
		require.Equal(t, hitl.EventQuestionAsked, evs[0].Type)
		require.Equal(t, q, evs[0].Question)
	})

	t.Run("unknown id is not found", func(t *testing.T) {
		db := openTestDB(t)
		_, err := db.Question(ctx, "q_nope")
		require.Equal(t, hitl.ENOTFOUND, hitl.ErrorCode(err))
	})

	t.Run("same idempotency key returns the existing question and writes no event", func(t *testing.T) {
		db := openTestDB(t)
		svc := newService(db, newClock())
		n := hitl.NewQuestion{Question: "Which database?", IdempotencyKey: "step-7"}
		first, created, err := svc.Create(as("api:agent"), "job-1", n)
		require.NoError(t, err)
		require.True(t, created)

		again, created, err := svc.Create(as("api:agent"), "job-1", n)
		require.NoError(t, err)
		require.False(t, created)
		require.Equal(t, first, again)

		other, created, err := svc.Create(as("api:agent"), "job-2", n)
		require.NoError(t, err)
		require.True(t, created, "keys are per job")
		require.NotEqual(t, first.ID, other.ID)

		evs, err := db.Events(ctx, 0, 0)
		require.NoError(t, err)
		require.Len(t, evs, 2)
		allPage, err := db.Questions(ctx, hitl.QuestionFilter{})
		all := allPage.Questions
		require.NoError(t, err)
		require.Equal(t, []string{first.ID, other.ID}, ids(all))
	})

	t.Run("concurrent asks with one key create exactly one question", func(t *testing.T) {
		db := openTestDB(t)
		svc := newService(db, newClock())
		const callers = 10
		var wg sync.WaitGroup
		got := make([]*hitl.Question, callers)
		createdN := make([]bool, callers)
		for i := range callers {
			wg.Go(func() {
				q, created, err := svc.Create(as("api:agent"), "job-1", hitl.NewQuestion{Question: "Go?", IdempotencyKey: "k"})
				require.NoError(t, err)
				got[i], createdN[i] = q, created
			})
		}
		wg.Wait()
		n := 0
		for i := range callers {
			require.Equal(t, got[0].ID, got[i].ID)
			if createdN[i] {
				n++
			}
		}
		require.Equal(t, 1, n)
		evs, err := db.Events(ctx, 0, 0)
		require.NoError(t, err)
		require.Len(t, evs, 1)
	})

	t.Run("taken id is a conflict", func(t *testing.T) {
		db := openTestDB(t)
		q := &hitl.Question{ID: "q_1", JobID: "job-1", Status: hitl.StatusPending, CreatedAt: t0}
		_, _, err := db.CreateQuestion(ctx, q, nil)
		require.NoError(t, err)
		_, _, err = db.CreateQuestion(ctx, q, &hitl.Event{Type: hitl.EventQuestionAsked})
		require.Equal(t, hitl.ECONFLICT, hitl.ErrorCode(err))
		evs, err := db.Events(ctx, 0, 0)
		require.NoError(t, err)
		require.Empty(t, evs)
	})
}

func TestUpdateQuestion(t *testing.T) {
	ctx := context.Background()

	t.Run("error from fn is returned as is and nothing is written", func(t *testing.T) {
		db := openTestDB(t)
		q := ask(t, newService(db, newClock()), "job-1", 30)
		want := errors.New("refused by fn")
		_, err := db.UpdateQuestion(ctx, q.ID, func(q *hitl.Question) (*hitl.Event, error) {
			q.Status = hitl.StatusCancelled
			q.TimeoutAt = nil
			return &hitl.Event{Type: hitl.EventQuestionCancelled}, want
		})
		require.Same(t, want, err)

		got, err := db.Question(ctx, q.ID)
		require.NoError(t, err)
		require.Equal(t, q, got)
		evs, err := db.Events(ctx, 0, 0)
		require.NoError(t, err)
		require.Len(t, evs, 1)
	})

	t.Run("errors from fn in a shared batch leave the other writes alone", func(t *testing.T) {
		db := openTestDB(t)
		svc := newService(db, newClock())
		const n = 16
		qs := make([]*hitl.Question, n)
		for i := range qs {
			qs[i] = ask(t, svc, "job-1", 30)
		}
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i, q := range qs {
			wg.Go(func() {
				errs[i] = fmt.Errorf("fn error %d", i)
				_, err := db.UpdateQuestion(ctx, q.ID, func(q *hitl.Question) (*hitl.Event, error) {
					q.Status = hitl.StatusCancelled
					if i%2 == 1 {
						return nil, errs[i]
					}
					return &hitl.Event{Type: hitl.EventQuestionCancelled, QuestionID: q.ID}, nil
				})
				if i%2 == 1 {
					require.Same(t, errs[i], err)
				} else {
					require.NoError(t, err)
				}
			})
		}
		wg.Wait()
		for i, q := range qs {
			got, err := db.Question(ctx, q.ID)
			require.NoError(t, err)
			if i%2 == 1 {
				require.Equal(t, hitl.StatusPending, got.Status)
			} else {
				require.Equal(t, hitl.StatusCancelled, got.Status)
			}
		}
		evs, err := db.Events(ctx, n, 0)
		require.NoError(t, err)
		require.Len(t, evs, n/2)
	})

	t.Run("unknown id is not found and fn is not called", func(t *testing.T) {
		db := openTestDB(t)
		_, err := db.UpdateQuestion(ctx, "q_nope", func(*hitl.Question) (*hitl.Event, error) {
			t.Error("fn called")
			return nil, nil
		})
		require.Equal(t, hitl.ENOTFOUND, hitl.ErrorCode(err))
	})

	t.Run("first answer wins and later ones get a conflict naming the winner", func(t *testing.T) {
		db := openTestDB(t)
		svc := newService(db, newClock())
		q := ask(t, svc, "job-1", 30)
		_, err := svc.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "postgres"})
		require.NoError(t, err)
		_, err = svc.Answer(as("slack:U2"), q.ID, hitl.Response{Value: "mysql"})
		require.Equal(t, hitl.ECONFLICT, hitl.ErrorCode(err))
		var herr *hitl.Error
		require.ErrorAs(t, err, &herr)
		require.Equal(t, "slack:U1", herr.By)
		got, err := db.Question(ctx, q.ID)
		require.NoError(t, err)
		require.Equal(t, "postgres", got.Response.Value)
	})

	t.Run("of 20 concurrent answers exactly one wins", func(t *testing.T) {
		db := openTestDB(t)
		svc := newService(db, newClock())
		q := ask(t, svc, "job-1", 30)
		const n = 20
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = svc.Answer(as(fmt.Sprintf("slack:U%d", i)), q.ID, hitl.Response{Value: fmt.Sprintf("answer %d", i)})
			})
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch hitl.ErrorCode(err) {
			case "":
				require.Equal(t, -1, winner, "two winners")
				winner = i
			case hitl.ECONFLICT:
			default:
				t.Fatalf("answer %d: %v", i, err)
			}
		}
		require.NotEqual(t, -1, winner)
		got, err := db.Question(ctx, q.ID)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("answer %d", winner), got.Response.Value)
		require.Equal(t, fmt.Sprintf("slack:U%d", winner), got.RespondedBy)
		for i, err := range errs {
			if i != winner {
				var herr *hitl.Error
				require.ErrorAs(t, err, &herr)
				require.Equal(t, got.RespondedBy, herr.By)
			}
		}
		evs, err := db.Events(ctx, 1, 0)
		require.NoError(t, err)
		require.Len(t, evs, 1)
		require.Equal(t, hitl.EventQuestionAnswered, evs[0].Type)
	})

	t.Run("sensitive answer is scrubbed once received", func(t *testing.T) {
		db := openTestDB(t)
		svc := newService(db, newClock())
		q, _, err := svc.Create(as("api:agent"), "job-1", hitl.NewQuestion{Question: "Token?", InputType: hitl.PasswordInput})
		require.NoError(t, err)
		_, err = svc.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "s3cret"})
		require.NoError(t, err)
		got, err := svc.Receive(as("api:agent"), q.ID)
		require.NoError(t, err)
		require.Equal(t, "s3cret", got.Response.Value)
		stored, err := db.Question(ctx, q.ID)
		require.NoError(t, err)
		require.True(t, stored.Response.Redacted)
		require.Nil(t, stored.Response.Value)
		_, err = svc.Receive(as("api:agent"), q.ID)
		require.Equal(t, hitl.ECONFLICT, hitl.ErrorCode(err))
	})
}

func TestDueQuestions(t *testing.T) {
	ctx := context.Background()

	t.Run("due questions come earliest first without answered or later ones", func(t *testing.T) {
		db := openTestDB(t)
		clock := newClock()
		svc := newService(db, clock)
		q30 := ask(t, svc, "job-1", 30)
		q10 := ask(t, svc, "job-1", 10)
		q20 := ask(t, svc, "job-2", 20)
		q15 := ask(t, svc, "job-2", 15)
		q60 := ask(t, svc, "job-2", 60)
		_, _, err := svc.Create(as("api:agent"), "job-3", hitl.NewQuestion{Question: "FYI", Type: hitl.NonBlocking, DefaultResponse: &hitl.Response{Value: "ok"}})
		require.NoError(t, err)
		_, err = svc.Answer(as("slack:U1"), q20.ID, hitl.Response{Value: "done"})
		require.NoError(t, err)
		_, err = svc.Cancel(as("slack:U1"), q15.ID, "not needed")
		require.NoError(t, err)

		due, err := db.DueQuestions(ctx, t0.Add(9*time.Minute), 10)
		require.NoError(t, err)
		require.Empty(t, due)
		due, err = db.DueQuestions(ctx, *q10.TimeoutAt, 10)
		require.NoError(t, err)
		require.Equal(t, []string{q10.ID}, due, "a deadline equal to now is due")
		due, err = db.DueQuestions(ctx, t0.Add(45*time.Minute), 10)
		require.NoError(t, err)
		require.Equal(t, []string{q10.ID, q30.ID}, due)
		due, err = db.DueQuestions(ctx, t0.Add(24*time.Hour), 2)
		require.NoError(t, err)
		require.Equal(t, []string{q10.ID, q30.ID}, due, "limit")
		due, err = db.DueQuestions(ctx, t0.Add(24*time.Hour), 0)
		require.NoError(t, err)
		require.Equal(t, []string{q10.ID, q30.ID, q60.ID}, due, "no limit")
	})

	t.Run("sweep times out due questions and leaves the rest", func(t *testing.T) {
		db := openTestDB(t)
		clock := newClock()
		svc := newService(db, clock)
		q10 := ask(t, svc, "job-1", 10)
		q20, _, err := svc.Create(as("api:agent"), "job-1", hitl.NewQuestion{
			Question: "Proceed?", ResponseType: hitl.BooleanResponse, TimeoutMinutes: minutes(20), DefaultResponse: &hitl.Response{Value: true},
		})
		require.NoError(t, err)
		q30 := ask(t, svc, "job-1", 30)

		clock.Add(25 * time.Minute)
		n, err := svc.SweepExpired(ctx)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		got, err := db.Question(ctx, q10.ID)
		require.NoError(t, err)
		require.Equal(t, hitl.OutcomeTimedOut, got.Outcome())
		got, err = db.Question(ctx, q20.ID)
		require.NoError(t, err)
		require.Equal(t, hitl.OutcomeDefaulted, got.Outcome())
		require.Equal(t, true, got.Response.Value)
		pendingPage, err := db.Questions(ctx, hitl.QuestionFilter{Status: hitl.StatusPending})
		pending := pendingPage.Questions
		require.NoError(t, err)
		require.Equal(t, []string{q30.ID}, ids(pending))
		require.NoError(t, db.Check())
	})
}

// TestIndexes runs the same lifecycle on the store and on memstore, the
// reference, and compares what every kind of listing returns.
func TestIndexes(t *testing.T) {
	t.Run("listings match the reference after asks answers cancels and timeouts", func(t *testing.T) {
		ctx := context.Background()
		db := openTestDB(t)
		ref := memstore.New()
		stores := []hitl.Store{db, ref}
		clocks, svcs := make([]interface{ Add(time.Duration) }, 2), make([]*hitl.Service, 2)
		for i, s := range stores {
			clock := newClock()
			var n int
			timeouts := hitl.DefaultTimeouts()
			timeouts.Min = time.Minute
			clocks[i] = clock
			svcs[i] = hitl.NewService(s, hitl.ServiceConfig{Clock: clock, Timeouts: timeouts, NewID: func() string {
				n++
				return fmt.Sprintf("q_%04d", 1000-n) // ids sort against creation order
			}})
		}
		jobs := []string{"job-a", "job-b", "job-c"}
		for step := range 60 {
			for i, svc := range svcs {
				job := jobs[step%len(jobs)]
				n := hitl.NewQuestion{Question: fmt.Sprintf("question %d", step), TimeoutMinutes: minutes(float64(5 + step%17))}
				switch step % 4 {
				case 1:
					n.Type, n.ResponseType = hitl.Approval, hitl.ApprovalResponse
				case 2:
					n.Type, n.DefaultResponse, n.TimeoutMinutes = hitl.NonBlocking, &hitl.Response{Value: "later"}, nil
				}
				q, _, err := svc.Create(as("api:agent"), job, n)
				require.NoError(t, err)
				switch step % 5 {
				case 1:
					_, err = svc.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "yes"})
				case 3:
					_, err = svc.Cancel(as("slack:U2"), q.ID, "stale")
				}
				require.NoError(t, err)
				clocks[i].Add(time.Minute)
				if step%10 == 9 {
					_, err := svc.SweepExpired(ctx)
					require.NoError(t, err)
				}
			}
		}
		require.NoError(t, db.Check())
		for _, st := range []hitl.Status{hitl.StatusPending, hitl.StatusAnswered, hitl.StatusTimeout, hitl.StatusCancelled} {
			qsPage, err := ref.Questions(ctx, hitl.QuestionFilter{Status: st})
			qs := qsPage.Questions
			require.NoError(t, err)
			require.NotEmpty(t, qs, "the mix has %s questions", st)
		}

		filters := []hitl.QuestionFilter{{}, {Limit: 7}, {Status: hitl.StatusPending}, {Status: hitl.StatusPending, Limit: 3}}
		for _, st := range []hitl.Status{hitl.StatusAnswered, hitl.StatusTimeout, hitl.StatusCancelled} {
			filters = append(filters, hitl.QuestionFilter{Status: st})
		}
		for _, job := range append(jobs, "job-none") {
			filters = append(filters,
				hitl.QuestionFilter{JobID: job}, hitl.QuestionFilter{JobID: job, Limit: 2},
				hitl.QuestionFilter{JobID: job, Status: hitl.StatusPending}, hitl.QuestionFilter{JobID: job, Type: hitl.Approval})
		}
		filters = append(filters, hitl.QuestionFilter{Type: hitl.NonBlocking, Status: hitl.StatusPending})
		for _, f := range filters {
			wantPage, err := ref.Questions(ctx, f)
			want := wantPage.Questions
			require.NoError(t, err)
			gotPage, err := db.Questions(ctx, f)
			got := gotPage.Questions
			require.NoError(t, err)
			require.Equal(t, ids(want), ids(got), "filter %+v", f)
			require.Equal(t, want, got, "filter %+v", f)
		}
		for _, now := range []time.Time{t0, t0.Add(70 * time.Minute), t0.Add(90 * time.Minute)} {
			want, err := ref.DueQuestions(ctx, now, 100)
			require.NoError(t, err)
			got, err := db.DueQuestions(ctx, now, 100)
			require.NoError(t, err)
			require.ElementsMatch(t, want, got, "due at %s", now)
		}
		want, err := ref.Events(ctx, 0, 0)
		require.NoError(t, err)
		got, err := db.Events(ctx, 0, 0)
		require.NoError(t, err)
		require.Equal(t, want, got)
	})
}
