package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClient(t *testing.T) {
	ctx := context.Background()
	t.Run("ask_answer_cancel_and_list_over_http", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		c := client.NewClient(e.http.URL, "", client.WithUser("alice"))
		q, created, err := c.Create(ctx, "team/run-1", blockingQ)
		require.NoError(t, err)
		require.True(t, created)
		require.Equal(t, "team/run-1", q.RunID)
		require.Equal(t, "local:alice", q.Asker)
		again, created, err := c.Create(ctx, "team/run-1", hitl.NewQuestion{Question: "k", IdempotencyKey: "k"})
		require.NoError(t, err)
		require.True(t, created)
		same, created, err := c.Create(ctx, "team/run-1", hitl.NewQuestion{Question: "k", IdempotencyKey: "k"})
		require.NoError(t, err)
		require.False(t, created)
		require.Equal(t, again.ID, same.ID)

		st, err := c.RunState(ctx, "team/run-1")
		require.NoError(t, err)
		require.Equal(t, steer.RunWaitingForInput, st.Status)

		got, err := c.Answer(ctx, q.ID, hitl.Response{Value: "Staging"})
		require.NoError(t, err)
		require.Equal(t, "staging", got.Response.Value)
		require.Equal(t, "local:alice", got.RespondedBy)

		cancelled, err := c.Cancel(ctx, again.ID, "changed my mind")
		require.NoError(t, err)
		require.Equal(t, hitl.StatusCancelled, cancelled.Status)

		all, err := c.QuestionPage(ctx, hitl.QuestionFilter{RunID: "team/run-1"})
		require.NoError(t, err)
		require.Len(t, all.Questions, 2)
		answered, err := c.QuestionPage(ctx, hitl.QuestionFilter{Status: hitl.StatusAnswered})
		require.NoError(t, err)
		require.Len(t, answered.Questions, 1)
		assert.Equal(t, 1, answered.Total, "a list by status says how many it holds")
		first, err := c.QuestionPage(ctx, hitl.QuestionFilter{RunID: "team/run-1", Limit: 1})
		require.NoError(t, err)
		require.Len(t, first.Questions, 1)
		require.NotEmpty(t, first.NextCursor)
		second, err := c.QuestionPage(ctx, hitl.QuestionFilter{RunID: "team/run-1", Limit: 1, Cursor: first.NextCursor})
		require.NoError(t, err)
		require.Len(t, second.Questions, 1)
		assert.NotEqual(t, first.Questions[0].ID, second.Questions[0].ID, "the next page goes on after the cursor")
		run, err := c.RunRecord(ctx, "team/run-1")
		require.NoError(t, err)
		assert.Equal(t, 2, run.Questions)
		one, err := c.Question(ctx, q.ID)
		require.NoError(t, err)
		require.Equal(t, hitl.StatusAnswered, one.Status)
	})
	t.Run("second_answer_is_conflict_naming_who_and_when", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		_, err := client.NewClient(e.http.URL, "", client.WithUser("alice")).Answer(ctx, q.ID, hitl.Response{Value: "Friday"})
		require.NoError(t, err)
		_, err = client.NewClient(e.http.URL, "", client.WithUser("bob")).Answer(ctx, q.ID, hitl.Response{Value: "Monday"})
		require.Equal(t, fault.ECONFLICT, fault.Code(err))
		var he *fault.Error
		require.ErrorAs(t, err, &he)
		require.Equal(t, "local:alice", he.By)
		require.Equal(t, "2025-03-01T12:00:00Z", he.At)
	})
	t.Run("unknown_id_is_not_found", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		_, err := e.client.Question(ctx, "q_nope")
		require.Equal(t, fault.ENOTFOUND, fault.Code(err))
		_, err = e.client.Wait(ctx, "q_nope")
		require.Equal(t, fault.ENOTFOUND, fault.Code(err))
	})
	t.Run("bad_input_is_invalid", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		_, _, err := e.client.Create(ctx, "job-1", hitl.NewQuestion{Question: "x", Type: "urgent"})
		require.Equal(t, fault.EINVALID, fault.Code(err))
		q := e.ask(t, "job-1", blockingQ)
		_, err = e.client.Answer(ctx, q.ID, hitl.Response{Value: "dev"})
		require.Equal(t, fault.EINVALID, fault.Code(err))
		_, err = e.client.Question(ctx, "..")
		require.Equal(t, fault.EINVALID, fault.Code(err))
	})
	t.Run("wrong_token_is_unauthorized", func(t *testing.T) {
		e := newEnv(t, ServerConfig{Tokens: tokens("tok", "ci")})
		_, err := client.NewClient(e.http.URL, "nope").QuestionPage(ctx, hitl.QuestionFilter{})
		require.Equal(t, fault.EUNAUTHORIZED, fault.Code(err))
		_, err = e.client.QuestionPage(ctx, hitl.QuestionFilter{})
		require.NoError(t, err)
	})
	t.Run("unreachable_server_is_unavailable", func(t *testing.T) {
		hs := httptest.NewServer(http.NotFoundHandler())
		hs.Close()
		_, err := client.NewClient(hs.URL, "").Question(ctx, "q_1")
		require.Equal(t, fault.EUNAVAILABLE, fault.Code(err))
	})
	t.Run("proxy_error_page_is_unavailable", func(t *testing.T) {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "<html>bad gateway</html>", http.StatusBadGateway)
		}))
		defer hs.Close()
		_, err := client.NewClient(hs.URL, "").Question(ctx, "q_1")
		require.Equal(t, fault.EUNAVAILABLE, fault.Code(err))
		require.Contains(t, err.Error(), "502")
	})
	t.Run("wait_retries_through_503s", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		q := e.ask(t, "job-1", textQ)
		e.answer(t, q.ID, hitl.Response{Value: "Friday"})
		var calls atomic.Int32
		flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) <= 2 {
				writeJSON(w, http.StatusServiceUnavailable, wire.ErrorResponse{Code: fault.EUNAVAILABLE, Message: "restarting"})
				return
			}
			e.server.ServeHTTP(w, r)
		}))
		defer flaky.Close()
		got, err := client.NewClient(flaky.URL, "", client.WithRetryBackoff(time.Millisecond, 2*time.Millisecond)).Wait(ctx, q.ID)
		require.NoError(t, err)
		require.Equal(t, hitl.StatusAnswered, got.Status)
		require.Equal(t, int32(3), calls.Load())
	})
	t.Run("wait_ends_with_ctx_returning_the_pending_question", func(t *testing.T) {
		e := newEnv(t, ServerConfig{MaxWait: 5 * time.Millisecond})
		q := e.ask(t, "job-1", textQ)
		wctx, cancel := context.WithCancel(ctx)
		type result struct {
			q   *hitl.Question
			err error
		}
		done := make(chan result, 1)
		go func() { q, err := e.client.Wait(wctx, q.ID); done <- result{q, err} }()
		e.w.until(t, "two long polls have ended", func(_, _, left int) bool { return left >= 2 })
		cancel()
		r := recv(t, done)
		require.ErrorIs(t, r.err, context.Canceled)
		require.NotNil(t, r.q)
		require.Equal(t, hitl.StatusPending, r.q.Status)
	})
}
