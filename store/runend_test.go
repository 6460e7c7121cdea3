package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/require"
)

func TestEndingRunSettlesInOneCommit(t *testing.T) {
	controller := auth.TokenPrincipal("ops", []auth.Scope{auth.ScopeControl}, "")
	// setup registers run with pending questions, written without fsync
	// (the setup is not what is measured).
	setup := func(t *testing.T, run string, pending int) (*DB, *service.Service, context.Context) {
		t.Helper()
		db := openTestDB(t)
		svc := newService(db, newClock())
		ctx := as("api:agent")
		_, err := svc.Runs.Publish(ctx, steer.StateEvent{Event: steer.StateRunning, RunID: run, Stack: []steer.StackEntry{{ID: run, Iter: 1}}})
		require.NoError(t, err)
		db.bolt.NoSync = true
		for range pending {
			ask(t, svc, run, 60)
		}
		db.bolt.NoSync = false
		return db, svc, ctx
	}
	// check asserts every question of run is cancelled with its event and
	// the run record counts none pending.
	check := func(t *testing.T, db *DB, run string, pending int) {
		t.Helper()
		ctx := context.Background()
		left, err := db.Questions(ctx, hitl.QuestionFilter{RunID: run, Status: hitl.StatusPending, Limit: hitl.MaxPageSize})
		require.NoError(t, err)
		require.Empty(t, left.Questions)
		cancelled := 0
		f := hitl.QuestionFilter{RunID: run, Status: hitl.StatusCancelled, Limit: hitl.MaxPageSize}
		for {
			page, err := db.Questions(ctx, f)
			require.NoError(t, err)
			for _, q := range page.Questions {
				require.Equal(t, auth.ActorSystem, q.RespondedBy)
				require.NotEmpty(t, q.CancelReason)
			}
			cancelled += len(page.Questions)
			if page.NextCursor == "" {
				break
			}
			f.Cursor = page.NextCursor
		}
		require.Equal(t, pending, cancelled)
		evs, err := db.Events(ctx, 0, 100_000)
		require.NoError(t, err)
		events := 0
		for _, ev := range evs {
			if ev.Type == hitl.EventQuestionCancelled && ev.RunID == run {
				events++
			}
		}
		require.Equal(t, pending, events)
		r, err := db.Run(ctx, run)
		require.NoError(t, err)
		require.NotNil(t, r)
		require.Equal(t, pending, r.Questions)
		require.Zero(t, r.Pending)
	}

	for _, tc := range []struct {
		name string
		end  func(t *testing.T, svc *service.Service, ctx context.Context, run string)
		// commits the ending takes besides settling the questions
		commits int
	}{
		{"a control cancel", func(t *testing.T, svc *service.Service, _ context.Context, run string) {
			msgs, err := svc.Runs.Control(auth.WithPrincipal(context.Background(), controller),
				steer.NewRequest("req-cancel-1", steer.CommandCancel, run, t0, steer.ControlPayload{}))
			require.NoError(t, err)
			require.Equal(t, steer.ResultSuccess, msgs[len(msgs)-1].Payload.Status)
		}, 1}, // the request, its ACK and RESULT, and the run record
		{"DONE", func(t *testing.T, svc *service.Service, ctx context.Context, run string) {
			_, err := svc.Runs.Publish(ctx, steer.StateEvent{Event: steer.StateDone, RunID: run})
			require.NoError(t, err)
		}, 1},
		{"ABORT", func(t *testing.T, svc *service.Service, ctx context.Context, run string) {
			_, err := svc.Runs.Publish(ctx, steer.StateEvent{Event: steer.StateAbort, RunID: run, Reason: "gave up"})
			require.NoError(t, err)
		}, 1},
	} {
		for _, pending := range []int{1, 300} {
			t.Run(fmt.Sprintf("%s settles %d pending questions in one commit", tc.name, pending), func(t *testing.T) {
				run := "run-end"
				db, svc, ctx := setup(t, run, pending)
				before := lastTxID(t, db)
				tc.end(t, svc, ctx, run)
				require.Equal(t, tc.commits+1, lastTxID(t, db)-before)
				check(t, db, run, pending)
			})
		}
	}
	t.Run("more pending questions than a batch take a commit per 1,000", func(t *testing.T) {
		const pending = 1001 // hitl's settleBatch is 1,000
		run := "run-big"
		db, svc, ctx := setup(t, run, pending)
		before := lastTxID(t, db)
		_, err := svc.Runs.Publish(ctx, steer.StateEvent{Event: steer.StateDone, RunID: run})
		require.NoError(t, err)
		require.Equal(t, 1+2, lastTxID(t, db)-before)
		check(t, db, run, pending)
	})
	t.Run("a waiter on a pending question is woken when the run ends", func(t *testing.T) {
		run := "run-wait"
		db, _, ctx := setup(t, run, 2)
		// The waiter reads its question after it starts watching: once the
		// read is seen, the wake-up cannot be missed.
		st := &readSignal{Store: db, read: make(chan string, 16)}
		svc := newService(st, newClock())
		page, err := db.Questions(context.Background(), hitl.QuestionFilter{RunID: run, Status: hitl.StatusPending, Limit: 10})
		require.NoError(t, err)
		require.Len(t, page.Questions, 2)
		id := page.Questions[1].ID
		type waited struct {
			q   *hitl.Question
			err error
		}
		done := make(chan waited, 1)
		go func() {
			q, err := svc.Questions.Wait(ctx, id)
			done <- waited{q, err}
		}()
		select {
		case got := <-st.read:
			require.Equal(t, id, got)
		case <-time.After(10 * time.Second):
			t.Fatal("the waiter did not read its question")
		}
		_, err = svc.Runs.Publish(ctx, steer.StateEvent{Event: steer.StateAbort, RunID: run, Reason: "gave up"})
		require.NoError(t, err)
		select {
		case w := <-done:
			require.NoError(t, w.err)
			require.Equal(t, hitl.StatusCancelled, w.q.Status)
		case <-time.After(10 * time.Second):
			t.Fatal("the waiter was not woken")
		}
	})
}

// readSignal is a hitl.Store that says which question it read.
type readSignal struct {
	hitl.Store
	read chan string
}

func (s *readSignal) Question(ctx context.Context, id string) (*hitl.Question, error) {
	q, err := s.Store.Question(ctx, id)
	select {
	case s.read <- id:
	default:
	}
	return q, err
}

// BenchmarkRunEndSettles2000 measures a run with 2,000 pending questions
// reporting DONE: the run record's commit, then its questions settled
// (commits/op counts both).
func BenchmarkRunEndSettles2000(b *testing.B) {
	const pending = 2000
	db, err := Open(filepath.Join(b.TempDir(), "hitl.db"))
	require.NoError(b, err)
	defer db.Close()
	svc := newService(db, newClock())
	ctx := as("api:agent")
	commits := 0
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		run := fmt.Sprintf("run-%d", i)
		_, err := svc.Runs.Publish(ctx, steer.StateEvent{Event: steer.StateRunning, RunID: run, Stack: []steer.StackEntry{{ID: run, Iter: 1}}})
		require.NoError(b, err)
		db.bolt.NoSync = true
		for range pending {
			_, _, err := svc.Questions.Create(ctx, run, hitl.NewQuestion{Question: "Which database?", TimeoutMinutes: minutes(60)})
			require.NoError(b, err)
		}
		db.bolt.NoSync = false
		before := lastTxID(b, db)
		b.StartTimer()
		_, err = svc.Runs.Publish(ctx, steer.StateEvent{Event: steer.StateDone, RunID: run})
		b.StopTimer()
		require.NoError(b, err)
		commits += lastTxID(b, db) - before
		b.StartTimer()
	}
	b.ReportMetric(float64(commits)/float64(b.N), "commits/op")
}
