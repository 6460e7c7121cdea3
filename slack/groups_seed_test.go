package slack

import (
	"context"
	"slices"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSeedGroupsAfterRestart: a bot started after a question was assigned
// to a user group (no event about it since) lists it in the queue of the
// group's members once it has read the pending questions, on every page.
func TestSeedGroupsAfterRestart(t *testing.T) {
	groups := []string{"S0OPS", "S0DEV", "S0SRE"} // one per question: each page names its own
	api := &fakeAPI{GetUserGroupMembers: func(_ context.Context, group string) ([]string, error) {
		if slices.Contains(groups, group) {
			return []string{"U0DAN"}, nil
		}
		return nil, nil
	}}
	clock := clocktest.New(t0)
	st := memstore.New()
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock})
	b, ctx := newQueueBot(api, svc, st, clock)
	defer func(n int) { seedPage = n }(seedPage)
	seedPage = 2 // three questions: two pages
	var ids []string
	for _, g := range groups {
		q, _, err := svc.Questions.Create(auth.WithPrincipal(ctx, agentP), "run-1", hitl.NewQuestion{Question: "Ship it?", Assignees: []string{g}})
		require.NoError(t, err)
		ids = append([]string{q.ID}, ids...) // the queue is newest first
	}
	queue := func() []string { return queueIDs(t, b, ctx, "U0DAN") }
	assert.Empty(t, queue(), "a new bot knows nothing of the groups")
	require.NoError(t, b.seedGroups(ctx))
	assert.Equal(t, ids, queue(), "after reading the pending questions, the groups' member sees them all")
}
