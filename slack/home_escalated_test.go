package slack

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQueueHoldsEscalated: App Home's queue (and /hitl pending's) holds a
// question from its escalation on, for the person escalation added and
// for the members of the group it added, whom the bot had no other
// reason to look up.
func TestQueueHoldsEscalated(t *testing.T) {
	api := &fakeAPI{GetUserGroupMembers: func(_ context.Context, group string) ([]string, error) {
		return map[string][]string{"S0ESC": {"U0DAN"}}[group], nil
	}}
	clock := clocktest.New(t0)
	st := memstore.New()
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock, Reminders: hitl.ReminderPolicies{
		hitl.Blocking: {EscalateAfter: hitl.Duration(20 * time.Minute), EscalateTo: []string{"U0ESC", "S0ESC"}}}})
	b, ctx := newQueueBot(api, svc, st, clock)
	q, _, err := svc.Questions.Create(auth.WithPrincipal(ctx, agentP), "run-1", hitl.NewQuestion{Question: "Ship it?", Assignees: []string{"U0ALICE"}})
	require.NoError(t, err)
	_, err = b.projectOnce(ctx)
	require.NoError(t, err)
	queue := func(user string) []string { return queueIDs(t, b, ctx, user) }
	assert.Empty(t, queue("U0ESC"), "before the escalation")
	assert.Empty(t, queue("U0DAN"), "before the escalation")

	clock.Set(t0.Add(21 * time.Minute))
	n, err := svc.Questions.SweepReminders(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	_, err = b.projectOnce(ctx) // the escalation event: the bot learns the group it added
	require.NoError(t, err)
	assert.Equal(t, []string{q.ID}, queue("U0ESC"), "the person escalation added")
	assert.Equal(t, []string{q.ID}, queue("U0DAN"), "a member of the group escalation added")
	assert.Equal(t, []string{q.ID}, queue("U0ALICE"), "the assignee keeps it")
	assert.Empty(t, queue("U0BOB"), "nobody else")
}

// newQueueBot is a bot on svc (its store st) that is not started: tests
// call its queue and projection themselves. ctx is the bot's own.
func newQueueBot(api *fakeAPI, svc *service.Service, st *memstore.Store, clock hitl.Clock) (*Bot, context.Context) {
	b := newBot(Config{DefaultChannel: "C0HITL", Clock: clock, Envelopes: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		PostInterval: time.Millisecond, RetryMin: time.Millisecond, RetryMax: 5 * time.Millisecond, HomeRefresh: time.Minute},
		api, serviceOf(svc), memstore.NewOutbox())
	ctx := auth.WithPrincipal(context.Background(), auth.ObserverPrincipal("slack-bot"))
	b.calls = ctx
	return b, ctx
}

// queueIDs is the ids of user's queue (App Home, /hitl pending), newest
// first.
func queueIDs(t *testing.T, b *Bot, ctx context.Context, user string) []string {
	t.Helper()
	qs, _, err := b.queue(ctx, user, 10)
	require.NoError(t, err)
	var ids []string
	for _, q := range qs {
		ids = append(ids, q.ID)
	}
	return ids
}
