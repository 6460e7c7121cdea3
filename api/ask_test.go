package api

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/service"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/stretchr/testify/require"
)

type asked struct {
	q   *hitl.Question
	err error
}

// askInBackground runs Ask and returns its result on a channel once
// the waiter is parked in the service.
func (e *env) askInBackground(t *testing.T, runID string, n hitl.NewQuestion) (<-chan asked, *hitl.Question) {
	t.Helper()
	done := make(chan asked, 1)
	go func() {
		q, err := e.client.Ask(context.Background(), runID, n)
		done <- asked{q, err}
	}()
	e.w.until(t, "the waiter is parked", func(in, _, _ int) bool { return in == 1 })
	return done, e.pending(t, runID)
}

// pending returns the one pending question of job.
func (e *env) pending(t *testing.T, runID string) *hitl.Question {
	t.Helper()
	qs, err := e.svc.Questions.Questions(principaltest.As(context.Background(), "admin:t"), hitl.QuestionFilter{RunID: runID, Status: hitl.StatusPending})
	require.NoError(t, err)
	require.Len(t, qs, 1)
	return qs[0]
}

// expire moves the clock past every timeout and sweeps.
func (e *env) expire(t *testing.T, d time.Duration) {
	t.Helper()
	e.clock.Add(d)
	n, err := e.svc.Questions.SweepExpired(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
}

func TestClientAsk(t *testing.T) {
	t.Run("answer_unblocks_the_agent", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		done, q := e.askInBackground(t, "job-1", blockingQ)
		e.answer(t, q.ID, hitl.Response{Value: "prod"})
		r := recv(t, done)
		require.NoError(t, r.err)
		require.Equal(t, hitl.StatusAnswered, r.q.Status)
		require.Equal(t, "prod", r.q.Response.Value)
	})
	t.Run("timeout_without_default_is_timed_out", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		done, _ := e.askInBackground(t, "job-1", textQ)
		e.expire(t, 31*time.Minute)
		r := recv(t, done)
		require.Equal(t, fault.ETIMEDOUT, fault.Code(r.err))
		require.Equal(t, hitl.StatusTimeout, r.q.Status)
	})
	t.Run("timeout_with_default_returns_the_default", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		n := textQ
		n.DefaultResponse = &hitl.Response{Value: "next week"}
		done, _ := e.askInBackground(t, "job-1", n)
		e.expire(t, 31*time.Minute)
		r := recv(t, done)
		require.NoError(t, r.err)
		require.Equal(t, hitl.StatusTimeout, r.q.Status)
		require.Equal(t, "next week", r.q.Response.Value)
	})
	t.Run("cancel_is_cancelled_with_the_question", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		done, q := e.askInBackground(t, "job-1", textQ)
		_, err := e.svc.Questions.Cancel(principaltest.As(context.Background(), "cli:alice"), q.ID, "job finished")
		require.NoError(t, err)
		r := recv(t, done)
		require.Equal(t, fault.ECANCELLED, fault.Code(r.err))
		require.Contains(t, r.err.Error(), "job finished")
		require.Equal(t, hitl.StatusCancelled, r.q.Status)
	})
	t.Run("non_blocking_returns_at_once_with_the_default", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q, err := e.client.Ask(context.Background(), "job-1", hitl.NewQuestion{Question: "Verbose?",
			Type: hitl.NonBlocking, ResponseType: hitl.BooleanResponse, DefaultResponse: &hitl.Response{Value: "no"}})
		require.NoError(t, err)
		require.Equal(t, hitl.StatusPending, q.Status)
		require.Equal(t, false, q.Response.Value)
	})
	t.Run("sensitive_answer_is_received_once", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		done, q := e.askInBackground(t, "job-1", hitl.NewQuestion{Question: "API key?", InputType: hitl.PasswordInput})
		e.answer(t, q.ID, hitl.Response{Value: "s3cret"})
		r := recv(t, done)
		require.NoError(t, r.err)
		require.Equal(t, "s3cret", r.q.Response.Value)
		_, err := e.client.Receive(context.Background(), q.ID)
		require.Equal(t, fault.ECONFLICT, fault.Code(err))
	})
	t.Run("same_key_before_the_outcome_is_taken_picks_it_up", func(t *testing.T) {
		// An agent that crashed after asking asks again with the same key.
		e := newEnv(t, ServerConfig{})
		n := textQ
		n.IdempotencyKey = "step-3"
		q, created, err := e.client.Create(context.Background(), "job-1", n)
		require.NoError(t, err)
		require.True(t, created)
		e.answer(t, q.ID, hitl.Response{Value: "Friday"})
		again, err := e.client.Ask(context.Background(), "job-1", n)
		require.NoError(t, err)
		require.Equal(t, q.ID, again.ID)
		require.Equal(t, "Friday", again.Response.Value)
	})
	t.Run("same_key_after_the_outcome_was_taken_asks_anew", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		n := textQ
		n.IdempotencyKey = "step-3"
		done, q := e.askInBackground(t, "job-1", n)
		e.answer(t, q.ID, hitl.Response{Value: "Friday"})
		require.NoError(t, recv(t, done).err)
		next, created, err := e.client.Create(context.Background(), "job-1", n)
		require.NoError(t, err)
		require.True(t, created)
		require.NotEqual(t, q.ID, next.ID)
		require.Equal(t, hitl.StatusPending, next.Status)
	})
	for _, tc := range []struct {
		name   string
		settle func(e *env, t *testing.T, id string)
	}{
		{"answered_outcome_is_received", func(e *env, t *testing.T, id string) { e.answer(t, id, hitl.Response{Value: "x"}) }},
		{"timeout_outcome_is_received", func(e *env, t *testing.T, _ string) { e.expire(t, 31*time.Minute) }},
		{"cancelled_outcome_is_received", func(e *env, t *testing.T, id string) {
			_, err := e.svc.Questions.Cancel(principaltest.As(context.Background(), "admin:t"), id, "no")
			require.NoError(t, err)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, ServerConfig{})
			done, q := e.askInBackground(t, "job-1", textQ)
			tc.settle(e, t, q.ID)
			recv(t, done)
			got, err := e.svc.Questions.Question(principaltest.As(context.Background(), "admin:t"), q.ID)
			require.NoError(t, err)
			require.NotNil(t, got.ReceivedAt)
		})
	}
	t.Run("invalid_question_is_invalid", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		_, err := e.client.Ask(context.Background(), "job-1", hitl.NewQuestion{})
		require.Equal(t, fault.EINVALID, fault.Code(err))
	})
}

// restarting is a QuestionService that is svc until the first Receive,
// and after it next: the service restarted between the answer and its
// receipt, so the sensitive answer sealed by svc cannot be opened.
type restarting struct {
	hitl.QuestionService
	next hitl.QuestionService
	mu   sync.Mutex
}

func (r *restarting) current() hitl.QuestionService {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.QuestionService
}

func (r *restarting) Wait(ctx context.Context, id string) (*hitl.Question, error) {
	return r.current().Wait(ctx, id)
}

func (r *restarting) Question(ctx context.Context, id string) (*hitl.Question, error) {
	return r.current().Question(ctx, id)
}

func (r *restarting) Receive(ctx context.Context, id string) (*hitl.Question, error) {
	r.mu.Lock()
	r.QuestionService = r.next
	r.mu.Unlock()
	return r.next.Receive(ctx, id)
}

func TestClientAskSensitiveLostToRestart(t *testing.T) {
	t.Run("keeps_waiting_and_returns_the_second_answer", func(t *testing.T) {
		clock := clocktest.New(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
		store := memstore.New()
		before := service.NewService(store, service.ServiceConfig{Notifier: notify.New(), Clock: clock})
		after := service.NewService(store, service.ServiceConfig{Notifier: notify.New(), Clock: clock})
		w := newWatched(&restarting{QuestionService: before.Questions, next: after.Questions})
		srv := NewServer(over(w, after), ServerConfig{Clock: clock, Logger: discard})
		ts := httptest.NewServer(srv)
		t.Cleanup(ts.Close)
		t.Cleanup(srv.Close)
		client := client.NewClient(ts.URL, "", client.WithRetryBackoff(5*time.Millisecond, 50*time.Millisecond))

		done := make(chan asked, 1)
		go func() {
			q, err := client.Ask(context.Background(), "job-1", hitl.NewQuestion{Question: "API key?", InputType: hitl.PasswordInput})
			done <- asked{q, err}
		}()
		w.until(t, "the agent waits", func(in, _, _ int) bool { return in == 1 })
		qs, err := before.Questions.Questions(principaltest.As(context.Background(), "admin:t"), hitl.QuestionFilter{Status: hitl.StatusPending})
		require.NoError(t, err)
		require.Len(t, qs, 1)
		id := qs[0].ID
		person := principaltest.As(context.Background(), "slack:U024BE7LH")
		_, err = before.Questions.Answer(person, id, hitl.Response{Value: "lost"})
		require.NoError(t, err)

		w.until(t, "the agent waits again", func(in, entered, _ int) bool { return in == 1 && entered == 2 })
		_, err = after.Questions.Answer(person, id, hitl.Response{Value: "s3cret"})
		require.NoError(t, err)
		r := recv(t, done)
		require.NoError(t, r.err)
		require.Equal(t, id, r.q.ID)
		require.Equal(t, "s3cret", r.q.Response.Value)
	})
}
