package bot

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSeedGroupsAfterRestart: a bot started after a question was assigned
// to a user group (no event about it since) lists it in the queue of the
// group's members once it has read the pending questions.
func TestSeedGroupsAfterRestart(t *testing.T) {
	api := &fakeAPI{GetUserGroupMembers: func(_ context.Context, group string) ([]string, error) {
		return map[string][]string{"S0OPS": {"U0DAN"}}[group], nil
	}}
	clock := clocktest.New(t0)
	st := memstore.New()
	svc := hitl.NewService(st, hitl.ServiceConfig{Notifier: notify.New(), Clock: clock})
	ctx := hitl.WithPrincipal(context.Background(), hitl.ObserverPrincipal("slack-bot"))
	defer func(n int) { seedPage = n }(seedPage)
	seedPage = 2 // three questions: two pages
	var ids []string
	for range 3 {
		q, _, err := svc.Create(hitl.WithPrincipal(ctx, agentP), "run-1", hitl.NewQuestion{Question: "Ship it?", Assignees: []string{"S0OPS"}})
		require.NoError(t, err)
		ids = append([]string{q.ID}, ids...) // the queue is newest first
	}
	b := newBot(Config{DefaultChannel: "C0HITL", Clock: clock, Envelopes: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		PostInterval: time.Millisecond, RetryMin: time.Millisecond, RetryMax: 5 * time.Millisecond, HomeRefresh: time.Minute},
		api, svc, memstore.NewOutbox())
	b.calls = ctx
	queue := func() []string {
		t.Helper()
		qs, _, err := b.queue(ctx, "U0DAN", 10)
		require.NoError(t, err)
		var got []string
		for _, q := range qs {
			got = append(got, q.ID)
		}
		return got
	}
	assert.Empty(t, queue(), "a new bot knows nothing of S0OPS")
	require.NoError(t, b.seedGroups(ctx))
	assert.Equal(t, ids, queue(), "after reading the pending questions, the group's member sees them")
}
