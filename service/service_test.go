package service_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func newService(t *testing.T) (*service.Service, *clocktest.Clock, *memstore.Store) {
	t.Helper()
	clock := clocktest.New(t0)
	st := memstore.New()
	return service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock}), clock, st
}

func as(actor string) context.Context { return principaltest.As(context.Background(), actor) }

func TestAsk(t *testing.T) {
	t.Run("blocking question gets the 30 minute default timeout", func(t *testing.T) {
		svc, _, _ := newService(t)
		q, created, err := svc.Questions.Create(as("api:bot"), "run-1", hitl.NewQuestion{Question: "Which database?"})
		require.NoError(t, err)
		assert.True(t, created)
		assert.Equal(t, hitl.StatusPending, q.Status)
		assert.Equal(t, hitl.Blocking, q.Type)
		assert.Equal(t, hitl.TextResponse, q.ResponseType)
		assert.Equal(t, t0.Add(30*time.Minute), *q.TimeoutAt)
		assert.Equal(t, "api:bot", q.Asker)
	})
	t.Run("defaults per type, and a timeout outside the bounds refused", func(t *testing.T) {
		svc, _, _ := newService(t)
		one, big := 1.0, 100000.0
		for _, tc := range []struct {
			name string
			n    hitl.NewQuestion
			want time.Duration
		}{
			{"approval 15m", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval}, 15 * time.Minute},
			{"error recovery 10m", hitl.NewQuestion{Question: "Retry?", Type: hitl.ErrorRecovery}, 10 * time.Minute},
			{"1 minute is refused", hitl.NewQuestion{Question: "x", TimeoutMinutes: &one}, 0},
			{"huge is refused", hitl.NewQuestion{Question: "x", TimeoutMinutes: &big}, 0},
		} {
			q, _, err := svc.Questions.Create(as("a"), "run-1", tc.n)
			if tc.want == 0 {
				assert.Equal(t, fault.EINVALID, fault.Code(err), tc.name)
				continue
			}
			require.NoError(t, err, tc.name)
			assert.Equal(t, t0.Add(tc.want), *q.TimeoutAt, tc.name)
		}
	})
	t.Run("non blocking has no timeout and needs a default", func(t *testing.T) {
		svc, _, _ := newService(t)
		_, _, err := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Verbose?", Type: hitl.NonBlocking, ResponseType: hitl.BooleanResponse})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
		q, _, err := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Verbose?", Type: hitl.NonBlocking, ResponseType: hitl.BooleanResponse,
			DefaultResponse: &hitl.Response{Value: "no"}})
		require.NoError(t, err)
		assert.Nil(t, q.TimeoutAt)
		assert.Equal(t, false, q.DefaultResponse.Value)
	})
	t.Run("same idempotency key returns the same question", func(t *testing.T) {
		svc, _, _ := newService(t)
		a, created, err := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Q", IdempotencyKey: "k1"})
		require.NoError(t, err)
		require.True(t, created)
		b, created, err := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Q", IdempotencyKey: "k1"})
		require.NoError(t, err)
		assert.False(t, created)
		assert.Equal(t, a.ID, b.ID)
		c, created, err := svc.Questions.Create(as("a"), "run-2", hitl.NewQuestion{Question: "Q", IdempotencyKey: "k1"})
		require.NoError(t, err)
		assert.True(t, created, "another run's key is another question")
		assert.NotEqual(t, a.ID, c.ID)
	})
	t.Run("invalid input names the problem", func(t *testing.T) {
		svc, _, _ := newService(t)
		for name, tc := range map[string]struct {
			job  string
			n    hitl.NewQuestion
			want string
		}{
			"empty question":     {"run-1", hitl.NewQuestion{}, "question is required"},
			"bad job id":         {"run 1", hitl.NewQuestion{Question: "x"}, "job id"},
			"choice w/o options": {"run-1", hitl.NewQuestion{Question: "x", ResponseType: hitl.ChoiceResponse}, "needs options"},
			"bad type":           {"run-1", hitl.NewQuestion{Question: "x", Type: "urgent"}, "type \"urgent\""},
			"approval with text": {"run-1", hitl.NewQuestion{Question: "x", Type: hitl.Approval, ResponseType: hitl.TextResponse}, "approval"},
			"sensitive choice":   {"run-1", hitl.NewQuestion{Question: "x", Sensitive: true, Options: []hitl.Option{{Label: "a"}}}, "sensitive"},
			"bad default":        {"run-1", hitl.NewQuestion{Question: "x", Options: []hitl.Option{{Label: "a"}}, DefaultResponse: &hitl.Response{Value: "b"}}, "defaultResponse"},
			"duplicate option":   {"run-1", hitl.NewQuestion{Question: "x", Options: []hitl.Option{{Label: "a"}, {Label: "a"}}}, "twice"},
			"bad assignee":       {"run-1", hitl.NewQuestion{Question: "x", Assignees: []string{"<!channel>"}}, "assignee"},
			"bad channel":        {"run-1", hitl.NewQuestion{Question: "x", Channel: "<!channel>"}, "channel"},
			"negative timeout":   {"run-1", hitl.NewQuestion{Question: "x", TimeoutMinutes: ptr(-1.0)}, "timeoutMinutes"},
			"password not text":  {"run-1", hitl.NewQuestion{Question: "x", InputType: hitl.PasswordInput, ResponseType: hitl.BooleanResponse}, "password"},
			"unknown input type": {"run-1", hitl.NewQuestion{Question: "x", InputType: "secret"}, "inputType"},
		} {
			_, _, err := svc.Questions.Create(as("a"), tc.job, tc.n)
			assert.Equal(t, fault.EINVALID, fault.Code(err), name)
			assert.Contains(t, fault.Message(err), tc.want, name)
		}
	})
	t.Run("password input makes the question sensitive", func(t *testing.T) {
		svc, _, _ := newService(t)
		q, _, err := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "API key?", InputType: hitl.PasswordInput})
		require.NoError(t, err)
		assert.True(t, q.Sensitive)
	})
}

func ptr[T any](v T) *T { return &v }

func TestAnswer(t *testing.T) {
	ask := func(t *testing.T, svc *service.Service, n hitl.NewQuestion) *hitl.Question {
		t.Helper()
		q, _, err := svc.Questions.Create(as("api:bot"), "run-1", n)
		require.NoError(t, err)
		return q
	}
	t.Run("choice answer by label is normalised to the option value", func(t *testing.T) {
		svc, _, _ := newService(t)
		q := ask(t, svc, hitl.NewQuestion{Question: "DB?", Options: []hitl.Option{{Label: "Production", Value: "prod"}, {Label: "Staging", Value: "stg"}}})
		got, err := svc.Questions.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "staging"})
		require.NoError(t, err)
		assert.Equal(t, "stg", got.Response.Value)
		assert.Equal(t, hitl.StatusAnswered, got.Status)
		assert.Equal(t, "slack:U1", got.RespondedBy)
		assert.Equal(t, t0, *got.RespondedAt)
	})
	t.Run("choice outside the options is refused", func(t *testing.T) {
		svc, _, _ := newService(t)
		q := ask(t, svc, hitl.NewQuestion{Question: "DB?", Options: []hitl.Option{{Label: "prod"}}})
		_, err := svc.Questions.Answer(as("u"), q.ID, hitl.Response{Value: "dev"})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
		assert.Contains(t, fault.Message(err), "not one of the options: prod")
		still, _ := svc.Questions.Question(as("admin:t"), q.ID)
		assert.True(t, still.Pending(), "a refused answer changes nothing")
	})
	t.Run("boolean accepts yes and true, refuses maybe", func(t *testing.T) {
		svc, _, _ := newService(t)
		q := ask(t, svc, hitl.NewQuestion{Question: "Go?", ResponseType: hitl.BooleanResponse})
		_, err := svc.Questions.Answer(as("u"), q.ID, hitl.Response{Value: "maybe"})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
		got, err := svc.Questions.Answer(as("u"), q.ID, hitl.Response{Value: "yes"})
		require.NoError(t, err)
		assert.Equal(t, true, got.Response.Value)
	})
	t.Run("approval deny keeps the reason", func(t *testing.T) {
		svc, _, _ := newService(t)
		q := ask(t, svc, hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
		got, err := svc.Questions.Answer(as("u"), q.ID, hitl.Response{Value: false, Text: "freeze week"})
		require.NoError(t, err)
		assert.Equal(t, hitl.OutcomeDenied, got.Outcome())
		assert.Equal(t, "freeze week", got.Response.Text)
	})
	t.Run("wrong response type is refused", func(t *testing.T) {
		svc, _, _ := newService(t)
		q := ask(t, svc, hitl.NewQuestion{Question: "Name?"})
		_, err := svc.Questions.Answer(as("u"), q.ID, hitl.Response{Type: hitl.BooleanResponse, Value: true})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
		_, err = svc.Questions.Answer(as("u"), q.ID, hitl.Response{Value: 42.0})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
	})
	t.Run("second answer is a conflict naming the first answerer", func(t *testing.T) {
		svc, _, _ := newService(t)
		q := ask(t, svc, hitl.NewQuestion{Question: "Name?"})
		_, err := svc.Questions.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "a"})
		require.NoError(t, err)
		_, err = svc.Questions.Answer(as("slack:U2"), q.ID, hitl.Response{Value: "b"})
		var he *fault.Error
		require.ErrorAs(t, err, &he)
		assert.Equal(t, fault.ECONFLICT, he.Code)
		assert.Equal(t, string(hitl.StatusAnswered), he.Status)
		assert.Equal(t, "slack:U1", he.By)
		assert.Contains(t, he.Message, "already answered by slack:U1 at 2026-11-22T10:00:00Z")
	})
	t.Run("concurrent answers: exactly one wins", func(t *testing.T) {
		svc, _, _ := newService(t)
		q := ask(t, svc, hitl.NewQuestion{Question: "Name?"})
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, conflicts := 0, 0
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := svc.Questions.Answer(as("u"), q.ID, hitl.Response{Value: "v" + string(rune('a'+i))})
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					wins++
				} else if fault.Code(err) == fault.ECONFLICT {
					conflicts++
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, 1, wins)
		assert.Equal(t, 19, conflicts)
	})
	t.Run("unknown question is not found", func(t *testing.T) {
		svc, _, _ := newService(t)
		_, err := svc.Questions.Answer(as("u"), "q_nope", hitl.Response{Value: "a"})
		assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	})
}

func TestWait(t *testing.T) {
	t.Run("waiter wakes with the answer", func(t *testing.T) {
		svc, _, _ := newService(t)
		q, _, _ := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Name?"})
		done := make(chan *hitl.Question)
		go func() {
			got, err := svc.Questions.Wait(as("admin:t"), q.ID)
			assert.NoError(t, err)
			done <- got
		}()
		_, err := svc.Questions.Answer(as("u"), q.ID, hitl.Response{Value: "Ada"})
		require.NoError(t, err)
		select {
		case got := <-done:
			assert.Equal(t, "Ada", got.Response.Value)
		case <-time.After(5 * time.Second):
			t.Fatal("waiter was not woken")
		}
	})
	t.Run("context end returns the pending question", func(t *testing.T) {
		svc, _, _ := newService(t)
		q, _, _ := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Name?"})
		ctx, cancel := context.WithCancel(as("a"))
		cancel()
		got, err := svc.Questions.Wait(ctx, q.ID)
		assert.ErrorIs(t, err, context.Canceled)
		assert.True(t, got.Pending())
	})
}

func TestSweepExpired(t *testing.T) {
	t.Run("due questions time out; default used when present", func(t *testing.T) {
		svc, clock, _ := newService(t)
		noDefault, _, _ := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Name?"})
		withDefault, _, _ := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Env?", Options: []hitl.Option{{Label: "prod"}, {Label: "dev"}},
			DefaultResponse: &hitl.Response{Value: "dev"}})
		approval, _, _ := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
		later, _, _ := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Later?", TimeoutMinutes: ptr(60.0)})

		n, err := svc.Questions.SweepExpired(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n, "nothing is due yet")

		clock.Add(30 * time.Minute)
		n, err = svc.Questions.SweepExpired(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 3, n)

		got, _ := svc.Questions.Question(as("admin:t"), noDefault.ID)
		assert.Equal(t, hitl.OutcomeTimedOut, got.Outcome())
		got, _ = svc.Questions.Question(as("admin:t"), withDefault.ID)
		assert.Equal(t, hitl.OutcomeDefaulted, got.Outcome())
		assert.Equal(t, "dev", got.Response.Value)
		got, _ = svc.Questions.Question(as("admin:t"), approval.ID)
		assert.Equal(t, hitl.StatusTimeout, got.Status)
		got, _ = svc.Questions.Question(as("admin:t"), later.ID)
		assert.True(t, got.Pending())

		_, err = svc.Questions.Answer(as("u"), noDefault.ID, hitl.Response{Value: "late"})
		assert.Equal(t, fault.ECONFLICT, fault.Code(err))
		assert.Contains(t, fault.Message(err), "timed out")
	})
}

func TestCancel(t *testing.T) {
	svc, _, _ := newService(t)
	q, _, _ := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Name?"})
	got, err := svc.Questions.Cancel(as("cli:bob"), q.ID, "no longer needed")
	require.NoError(t, err)
	assert.Equal(t, hitl.OutcomeCancelled, got.Outcome())
	assert.Equal(t, "no longer needed", got.CancelReason)
	_, err = svc.Questions.Answer(as("u"), q.ID, hitl.Response{Value: "x"})
	assert.Contains(t, fault.Message(err), "cancelled by cli:bob")
}

func TestSensitive(t *testing.T) {
	svc, _, st := newService(t)
	q, _, _ := svc.Questions.Create(as("api:bot"), "run-1", hitl.NewQuestion{Question: "API key?", Sensitive: true})
	got, err := svc.Questions.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "s3cret"})
	require.NoError(t, err)
	assert.Nil(t, got.Response.Value, "the answerer's copy is redacted")

	t.Run("never in the event log", func(t *testing.T) {
		evs, _ := st.Events(context.Background(), 0, 0)
		for _, ev := range evs {
			assert.NotContains(t, mustJSON(t, ev), "s3cret")
		}
	})
	t.Run("listing and history redact it", func(t *testing.T) {
		qs, _ := svc.Questions.Questions(as("admin:t"), hitl.QuestionFilter{RunID: "run-1"})
		assert.NotContains(t, mustJSON(t, qs), "s3cret")
		rs, _ := svc.Runs.RunState(as("admin:t"), "run-1")
		assert.Equal(t, "[redacted]", rs.InteractionHistory[0].Answer)
	})
	t.Run("another identity may not receive it", func(t *testing.T) {
		_, err := svc.Questions.Receive(as("api:other"), q.ID)
		assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
	})
	t.Run("the asker receives it once, then it is scrubbed", func(t *testing.T) {
		got, err := svc.Questions.Receive(as("api:bot"), q.ID)
		require.NoError(t, err)
		assert.Equal(t, "s3cret", got.Response.Value)
		_, err = svc.Questions.Receive(as("api:bot"), q.ID)
		assert.Equal(t, fault.ECONFLICT, fault.Code(err))
		stored, _ := st.Question(context.Background(), q.ID)
		assert.NotContains(t, mustJSON(t, stored), "s3cret")
	})
}

func TestRunState(t *testing.T) {
	svc, _, _ := newService(t)
	a, _, _ := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Name?"})
	_, err := svc.Questions.Answer(as("slack:U1"), a.ID, hitl.Response{Value: "Ada", Text: "my cat"})
	require.NoError(t, err)
	b, _, _ := svc.Questions.Create(as("a"), "run-1", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})

	rs, err := svc.Runs.RunState(as("admin:t"), "run-1")
	require.NoError(t, err)
	assert.Equal(t, steer.RunWaitingForApproval, rs.Status)
	assert.Equal(t, b.ID, rs.PendingQuestion.QuestionID)
	require.Len(t, rs.InteractionHistory, 1)
	assert.Equal(t, "Name?", rs.InteractionHistory[0].Question)
	assert.Equal(t, "Ada (my cat)", rs.InteractionHistory[0].Answer)
	assert.Equal(t, t0, rs.InteractionHistory[0].Timestamp)

	_, err = svc.Runs.RunState(as("admin:t"), "run-unknown")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
}

func TestNewServiceNeedsANotifier(t *testing.T) {
	assert.PanicsWithValue(t, "hitl: NewService without a Notifier", func() {
		service.NewService(memstore.New(), service.ServiceConfig{})
	})
}
