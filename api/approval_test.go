package api

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/require"
)

type decided struct {
	d   client.Decision
	err error
}

func (e *env) approvalInBackground(t *testing.T, opts client.ApprovalOptions) (<-chan decided, *hitl.Question) {
	t.Helper()
	done := make(chan decided, 1)
	go func() {
		d, err := e.client.RequestApproval(context.Background(), "job-1", "Delete 3 duplicate signals", opts)
		done <- decided{d, err}
	}()
	e.w.until(t, "the approval waiter is parked", func(in, _, _ int) bool { return in == 1 })
	return done, e.pending(t, "job-1")
}

func TestRequestApproval(t *testing.T) {
	t.Run("grant_is_approved_with_message", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		done, q := e.approvalInBackground(t, client.ApprovalOptions{Context: &hitl.QuestionContext{CurrentStep: "cleanup"}, Assignees: []string{"U024BE7LH"}})
		require.Equal(t, hitl.Approval, q.Type)
		require.Equal(t, "Delete 3 duplicate signals", q.Question)
		require.Equal(t, []string{"U024BE7LH"}, q.Assignees)
		e.answer(t, q.ID, hitl.Response{Value: "approve", Text: "proceed with cleanup"})
		r := recv(t, done)
		require.NoError(t, r.err)
		require.Equal(t, client.Approved, r.d.Outcome)
		require.Equal(t, "proceed with cleanup", r.d.Message)
		require.Equal(t, "slack:U024BE7LH", r.d.By)
		require.Equal(t, q.ID, r.d.Question.ID)
	})
	t.Run("deny_is_denied_with_reason", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		done, q := e.approvalInBackground(t, client.ApprovalOptions{})
		e.answer(t, q.ID, hitl.Response{Value: "deny", Text: "they are not duplicates"})
		r := recv(t, done)
		require.NoError(t, r.err)
		require.Equal(t, client.Denied, r.d.Outcome)
		require.Equal(t, "they are not duplicates", r.d.Reason)
		require.Empty(t, r.d.Message)
	})
	t.Run("no_answer_is_timed_out", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		done, q := e.approvalInBackground(t, client.ApprovalOptions{Timeout: 10 * time.Minute})
		require.Equal(t, e.clock.Now().Add(10*time.Minute), *q.TimeoutAt)
		e.expire(t, 10*time.Minute)
		r := recv(t, done)
		require.NoError(t, r.err)
		require.Equal(t, client.TimedOut, r.d.Outcome)
		require.Equal(t, auth.ActorSystem, r.d.By)
	})
	t.Run("cancel_is_a_cancelled_error", func(t *testing.T) {
		e := newEnv(t, ServerConfig{})
		done, q := e.approvalInBackground(t, client.ApprovalOptions{})
		_, err := e.svc.Questions.Cancel(principaltest.As(context.Background(), "admin:t"), q.ID, "run stopped")
		require.NoError(t, err)
		r := recv(t, done)
		require.Equal(t, fault.ECANCELLED, fault.Code(r.err))
		require.NotNil(t, r.d.Question)
	})
	t.Run("outcomes_have_seed_names", func(t *testing.T) {
		require.Equal(t, "Approved", string(client.Approved))
		require.Equal(t, "Denied", string(client.Denied))
		require.Equal(t, "TimedOut", string(client.TimedOut))
	})
}
