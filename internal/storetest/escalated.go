package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// escalations is the configuration of the escalated-lists contract:
// blocking questions are escalated at 20 minutes to a person and a group.
var escalations = hitl.ReminderPolicies{
	hitl.Blocking: {EscalateAfter: hitl.Duration(20 * time.Minute), EscalateTo: []string{"U0ESC", "S0ESC"}},
}

// runEscalated is the contract that a pending question is listed for
// the people escalation added (hitl.Question.Listed): their assignee
// lists and queues hold it, by creation time and by deadline, from the
// escalation until it is settled or handed to someone else.
func runEscalated(t *testing.T, open func(t *testing.T) hitl.Store) {
	newEnv := func(t *testing.T) *env { return envWith(open(t), service.ServiceConfig{Reminders: escalations}) }
	t.Run("an escalated person's lists hold the question from the escalation until it is settled", func(t *testing.T) {
		testEscalatedListed(t, newEnv(t))
	})
	t.Run("a queue by deadline pages an escalated question once", func(t *testing.T) { testEscalatedPaging(t, newEnv(t)) })
}

func testEscalatedListed(t *testing.T, e *env) {
	ctx := context.Background()
	start := e.clock.Now()
	assigned := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(60), Assignees: []string{"U0A"}})
	open := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(45)})
	other := e.ask(t, "run-2", hitl.NewQuestion{Question: "Q?", Type: hitl.Approval, TimeoutMinutes: minutes(60), Assignees: []string{"U0A"}})
	list := func(f hitl.QuestionFilter) []string {
		t.Helper()
		page, err := e.store.Questions(ctx, f)
		require.NoError(t, err)
		ids := []string{}
		for _, q := range page.Questions {
			ids = append(ids, q.ID)
		}
		return ids
	}
	lists := []struct {
		name string
		f    hitl.QuestionFilter
		want []string // after the escalation
	}{
		{"their assignee list", hitl.QuestionFilter{Assignee: "U0ESC"}, []string{assigned.ID, open.ID}},
		{"their assignee list by deadline", hitl.QuestionFilter{Assignee: "U0ESC", ByDeadline: true}, []string{open.ID, assigned.ID}},
		{"their queue, newest first", hitl.QuestionFilter{Queue: []string{"U0ESC"}, NotAskedBy: "U0ESC", Reverse: true}, []string{open.ID, assigned.ID}},
		{"their queue by deadline", hitl.QuestionFilter{Queue: []string{"U0ESC"}, ByDeadline: true}, []string{open.ID, assigned.ID}},
		{"a group escalation added, through a member's groups", hitl.QuestionFilter{Queue: []string{"U0M", "S0ESC"}}, []string{assigned.ID, open.ID}},
		{"a group's own list", hitl.QuestionFilter{Assignee: "S0ESC", ByDeadline: true}, []string{open.ID, assigned.ID}},
	}
	for _, l := range lists {
		assert.Empty(t, list(l.f), "before the escalation: %s", l.name)
	}

	e.clock.Set(start.Add(20*time.Minute + time.Second))
	n, err := e.svc.Questions.SweepReminders(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n, "both blocking questions escalated, the approval not")
	for _, l := range lists {
		assert.Equal(t, l.want, list(l.f), "after the escalation: %s", l.name)
	}
	assert.Equal(t, []string{assigned.ID, other.ID}, list(hitl.QuestionFilter{Assignee: "U0A"}), "the assignees keep theirs")
	assert.Equal(t, []string{open.ID}, list(hitl.QuestionFilter{Unassigned: true}), "an escalated question without assignees stays unassigned")
	assert.Equal(t, []string{open.ID, assigned.ID}, list(hitl.QuestionFilter{Queue: []string{"U0ESC"}, Unassigned: true, ByDeadline: true}),
		"in their queue once, though in their list and the unassigned one")

	e.answer(t, open.ID, "done")
	assert.Equal(t, []string{assigned.ID}, list(hitl.QuestionFilter{Queue: []string{"U0ESC"}, ByDeadline: true}), "a settled question waits on nobody")
	assert.Equal(t, []string{assigned.ID}, list(hitl.QuestionFilter{Assignee: "S0ESC"}))

	_, err = e.svc.Questions.Reassign(as(person), assigned.ID, []string{"U0B"})
	require.NoError(t, err)
	assert.Empty(t, list(hitl.QuestionFilter{Queue: []string{"U0ESC", "S0ESC"}}), "handed to someone else: not the escalated people's any more")
	assert.Empty(t, list(hitl.QuestionFilter{Assignee: "U0ESC", ByDeadline: true}))
	assert.Equal(t, []string{assigned.ID}, list(hitl.QuestionFilter{Assignee: "U0B", ByDeadline: true}))
}

func testEscalatedPaging(t *testing.T, e *env) {
	ctx := context.Background()
	start := e.clock.Now()
	var want []string
	for i := range 5 {
		q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(float64(60 - i)), Assignees: []string{"U0ESC"}})
		want = append([]string{q.ID}, want...) // later ones are due sooner
	}
	e.clock.Set(start.Add(20*time.Minute + time.Second))
	_, err := e.svc.Questions.SweepReminders(ctx)
	require.NoError(t, err)
	f := hitl.QuestionFilter{Queue: []string{"U0ESC", "S0ESC"}, Unassigned: true, ByDeadline: true, Limit: 2}
	var got []string
	for range 10 {
		page, err := e.store.Questions(ctx, f)
		require.NoError(t, err)
		for _, q := range page.Questions {
			got = append(got, q.ID)
		}
		if page.NextCursor == "" {
			break
		}
		f.Cursor = page.NextCursor
	}
	assert.Equal(t, want, got, "assigned to and escalated to the same person, in two of their lists: each once, in order")
}
