package service_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIdempotencyKeyLastsUntilTheOutcomeIsTaken(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := auth.WithPrincipal(context.Background(), asker)
	person := auth.WithPrincipal(context.Background(), answerer)
	n := hitl.NewQuestion{Question: "Deploy build 41 to prod?", Type: hitl.Approval, IdempotencyKey: "deploy-41"}

	first, created, err := svc.Questions.Create(ctx, "run-1", n)
	require.NoError(t, err)
	require.True(t, created)

	t.Run("a retry before the answer returns the same question", func(t *testing.T) {
		again, created, err := svc.Questions.Create(ctx, "run-1", n)
		require.NoError(t, err)
		assert.False(t, created)
		assert.Equal(t, first.ID, again.ID)
	})
	t.Run("the same key with another question is a conflict that says so", func(t *testing.T) {
		other := n
		other.Question = "Deploy build 42 to prod?"
		_, _, err := svc.Questions.Create(ctx, "run-1", other)
		require.Equal(t, fault.ECONFLICT, fault.Code(err))
		assert.Contains(t, fault.Message(err), "asks something else")
	})
	t.Run("another asker cannot take over the key", func(t *testing.T) {
		_, _, err := svc.Questions.Create(auth.WithPrincipal(context.Background(), other), "run-1", n)
		require.Equal(t, fault.EFORBIDDEN, fault.Code(err), "the run is not theirs")
		theirs, created, err := svc.Questions.Create(auth.WithPrincipal(context.Background(), admin), "run-1", n)
		require.NoError(t, err, "an admin may ask in it")
		assert.True(t, created, "and its key is its own: it never finds another asker's question")
		assert.NotEqual(t, first.ID, theirs.ID)
		again, created, err := svc.Questions.Create(auth.WithPrincipal(context.Background(), admin), "run-1", n)
		require.NoError(t, err)
		assert.False(t, created)
		assert.Equal(t, theirs.ID, again.ID, "its retry finds its own")
	})
	_, err = svc.Questions.Answer(person, first.ID, hitl.Response{Value: "approve"})
	require.NoError(t, err)
	t.Run("after the answer, before receiving, the retry finds the outcome", func(t *testing.T) {
		again, created, err := svc.Questions.Create(ctx, "run-1", n)
		require.NoError(t, err)
		assert.False(t, created)
		assert.Equal(t, hitl.OutcomeApproved, again.Outcome())
	})
	t.Run("once received, the same key asks anew", func(t *testing.T) {
		got, err := svc.Questions.Receive(ctx, first.ID)
		require.NoError(t, err)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
		assert.NotNil(t, got.ReceivedAt)
		next, created, err := svc.Questions.Create(ctx, "run-1", n)
		require.NoError(t, err)
		assert.True(t, created, "an approval given once does not approve every later run")
		assert.NotEqual(t, first.ID, next.ID)
		assert.True(t, next.Pending())
	})
	t.Run("receiving again returns the same outcome", func(t *testing.T) {
		got, err := svc.Questions.Receive(ctx, first.ID)
		require.NoError(t, err)
		assert.Equal(t, hitl.OutcomeApproved, got.Outcome())
	})
	t.Run("a pending question is returned as it is", func(t *testing.T) {
		pending, _, err := svc.Questions.Create(ctx, "run-2", hitl.NewQuestion{Question: "Name?"})
		require.NoError(t, err)
		got, err := svc.Questions.Receive(ctx, pending.ID)
		require.NoError(t, err)
		assert.True(t, got.Pending())
		assert.Nil(t, got.ReceivedAt)
	})
}

// limiterFunc is a function-field hitl.Limiter.
type limiterFunc func(principal, run string) time.Duration

func (f limiterFunc) Allow(principal, run string) time.Duration { return f(principal, run) }

func TestRateLimitedCreation(t *testing.T) {
	charged := 0
	limit := limiterFunc(func(principal, run string) time.Duration {
		charged++
		if charged > 1 {
			return 1500 * time.Millisecond
		}
		return 0
	})
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0), Limiter: limit})
	ctx := auth.WithPrincipal(context.Background(), asker)
	n := hitl.NewQuestion{Question: "Q?", IdempotencyKey: "k"}
	_, _, err := svc.Questions.Create(ctx, "run-1", n)
	require.NoError(t, err)
	_, created, err := svc.Questions.Create(ctx, "run-1", n)
	require.NoError(t, err, "a retry that finds its key is not charged")
	assert.False(t, created)
	assert.Equal(t, 1, charged)
	_, _, err = svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Another?"})
	require.Equal(t, fault.ERATELIMITED, fault.Code(err))
	var he *fault.Error
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 1500*time.Millisecond, he.RetryAfter)
}

func TestSensitiveAnswersAreSealed(t *testing.T) {
	st := memstore.New()
	clock := clocktest.New(t0)
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock})
	ctx := auth.WithPrincipal(context.Background(), asker)
	person := auth.WithPrincipal(context.Background(), answerer)
	const secret = "hunter2-very-secret"
	q, _, err := svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "API key?", Sensitive: true})
	require.NoError(t, err)
	_, err = svc.Questions.Answer(person, q.ID, hitl.Response{Value: secret, Text: "rotated today"})
	require.NoError(t, err)

	stored, err := st.Question(context.Background(), q.ID)
	require.NoError(t, err)
	raw := mustJSON(t, stored)
	assert.NotContains(t, raw, secret, "the store never holds the secret in the clear")
	assert.NotContains(t, raw, "rotated today", "nor its note")
	require.NotNil(t, stored.Response.Sealed)
	evs, _ := st.Events(context.Background(), 0, 0)
	assert.NotContains(t, mustJSON(t, evs), secret, "nor the event log")

	t.Run("the asker receives it once", func(t *testing.T) {
		got, err := svc.Questions.Receive(ctx, q.ID)
		require.NoError(t, err)
		assert.Equal(t, secret, got.Response.Value)
		assert.Equal(t, "rotated today", got.Response.Text)
		_, err = svc.Questions.Receive(ctx, q.ID)
		assert.Equal(t, fault.ECONFLICT, fault.Code(err), "once")
		after, _ := st.Question(context.Background(), q.ID)
		assert.Nil(t, after.Response.Sealed, "scrubbed: not even the sealed form stays")
	})

	t.Run("a restart before it was received asks again", func(t *testing.T) {
		q2, _, err := svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "DB password?", Sensitive: true})
		require.NoError(t, err)
		_, err = svc.Questions.Answer(person, q2.ID, hitl.Response{Value: secret})
		require.NoError(t, err)
		clock.Add(29 * time.Minute) // one minute before the timeout

		restarted := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock}) // a new key
		n, err := restarted.Questions.ReopenSealed(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		got, err := restarted.Questions.Question(ctx, q2.ID)
		require.NoError(t, err)
		assert.True(t, got.Pending(), "the waiting agent simply keeps waiting")
		assert.Contains(t, got.Notice, "restarted before the agent received")
		assert.Equal(t, clock.Now().Add(5*time.Minute), *got.TimeoutAt, "people get the minimum time to answer again")
		evs, _ := st.Events(context.Background(), 0, 0)
		assert.Equal(t, hitl.EventQuestionReopened, evs[len(evs)-1].Type)

		_, err = restarted.Questions.Answer(person, q2.ID, hitl.Response{Value: "new-" + secret})
		require.NoError(t, err)
		got, err = restarted.Questions.Receive(ctx, q2.ID)
		require.NoError(t, err)
		assert.Equal(t, "new-"+secret, got.Response.Value)
	})
}

func TestChoiceAnswersAreUnambiguous(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := auth.WithPrincipal(context.Background(), asker)
	t.Run("an answer naming two options is refused, listing them", func(t *testing.T) {
		q, _, err := svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Which?", Options: []hitl.Option{
			{ID: "1", Label: "two", Value: "b"}, {ID: "2", Label: "1", Value: "a"}}})
		require.NoError(t, err)
		_, err = svc.Questions.Answer(auth.WithPrincipal(context.Background(), answerer), q.ID, hitl.Response{Value: "1"})
		require.Equal(t, fault.EINVALID, fault.Code(err))
		assert.Contains(t, fault.Message(err), "ambiguous")
		assert.Contains(t, fault.Message(err), "two, 1")
		got, err := svc.Questions.Answer(auth.WithPrincipal(context.Background(), answerer), q.ID, hitl.Response{Value: "a"})
		require.NoError(t, err, "the value is never ambiguous")
		assert.Equal(t, "a", got.Response.Value)
	})
	for name, opts := range map[string][]hitl.Option{
		"labels that differ only in case": {{Label: "Prod", Value: "p1"}, {Label: "prod", Value: "p2"}},
		"values that differ only in case": {{Label: "A", Value: "x"}, {Label: "B", Value: "X"}},
	} {
		t.Run(name+" are refused at creation", func(t *testing.T) {
			_, _, err := svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Which?", Options: opts})
			require.Equal(t, fault.EINVALID, fault.Code(err))
			assert.True(t, strings.Contains(fault.Message(err), "appears twice"), fault.Message(err))
		})
	}
}

func TestMultiSelect(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := auth.WithPrincipal(context.Background(), asker)
	person := auth.WithPrincipal(context.Background(), answerer)
	n := hitl.NewQuestion{Question: "Which features?", MultiSelect: true,
		Options: []hitl.Option{{Label: "Auth"}, {Label: "Billing"}, {Label: "Search"}}}
	q, _, err := svc.Questions.Create(ctx, "run-1", n)
	require.NoError(t, err)
	t.Run("a list of options, in the question's order, once each", func(t *testing.T) {
		got, err := svc.Questions.Answer(person, q.ID, hitl.Response{Value: []any{"Search", "auth", "Search"}})
		require.NoError(t, err)
		assert.Equal(t, []string{"Auth", "Search"}, got.Response.Value)
		assert.Equal(t, "Auth, Search", got.Response.String())
	})
	t.Run("comma-separated, as typed in hitl answer", func(t *testing.T) {
		q, _, _ := svc.Questions.Create(ctx, "run-1", n)
		got, err := svc.Questions.Answer(person, q.ID, hitl.Response{Value: "billing, 3"})
		require.NoError(t, err)
		assert.Equal(t, []string{"Billing", "Search"}, got.Response.Value)
	})
	t.Run("an unknown option is refused", func(t *testing.T) {
		q, _, _ := svc.Questions.Create(ctx, "run-1", n)
		_, err := svc.Questions.Answer(person, q.ID, hitl.Response{Value: []any{"Auth", "Payments"}})
		assert.Equal(t, fault.EINVALID, fault.Code(err))
	})
	_, _, err = svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "x?", MultiSelect: true})
	assert.ErrorContains(t, err, "multiSelect is only for choice questions")
}
