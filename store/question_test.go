package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/stretchr/testify/require"
)

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
