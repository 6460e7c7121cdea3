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

// reminders is the reminder configuration of the contract's service:
// blocking questions are reminded at 10 and 30 minutes and escalated at
// 20; approvals reminded at 5.
var reminders = hitl.ReminderPolicies{
	hitl.Blocking: {Every: []hitl.Duration{hitl.Duration(10 * time.Minute), hitl.Duration(30 * time.Minute)},
		EscalateAfter: hitl.Duration(20 * time.Minute), EscalateTo: []string{"U0ESC"}, EscalationChannel: "C0ESC"},
	hitl.Approval: {Every: []hitl.Duration{hitl.Duration(5 * time.Minute)}},
}

// runReminders is the contract of DueReminders, and of the reminder
// sweep that reads it and records each reminder with its event.
func runReminders(t *testing.T, open func(t *testing.T) hitl.Store) {
	newEnv := func(t *testing.T) *env { return envWith(open(t), service.ServiceConfig{Reminders: reminders}) }
	t.Run("due reminders come earliest first, pending only, up to the limit", func(t *testing.T) { testDueReminders(t, newEnv(t)) })
	t.Run("each reminder and the escalation are recorded once, with their event", func(t *testing.T) { testRemindOnce(t, newEnv(t)) })
	t.Run("reminders missed while down are sent once", func(t *testing.T) { testRemindLate(t, newEnv(t)) })
	t.Run("nothing due: the sweep writes nothing", func(t *testing.T) { testRemindIdle(t, newEnv(t)) })
}

func testDueReminders(t *testing.T, e *env) {
	ctx := context.Background()
	start := e.clock.Now()
	blocking := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(60)})
	approval := e.ask(t, "run-1", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval, TimeoutMinutes: minutes(60)})
	answered := e.ask(t, "run-2", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(60)})
	short := e.ask(t, "run-2", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(8)}) // times out before any reminder
	e.answer(t, answered.ID, "done")
	require.NotNil(t, blocking.Reminders, "the plan is recorded when the question is asked")
	assert.Len(t, blocking.Reminders.At, 2)
	assert.Nil(t, short.Reminders, "nothing due at or after the timeout is planned")

	due := func(now time.Time, limit int) []string {
		t.Helper()
		got, err := e.store.DueReminders(ctx, now, limit)
		require.NoError(t, err)
		return append([]string{}, got...)
	}
	assert.Empty(t, due(start.Add(4*time.Minute), 10), "nothing due yet")
	assert.Equal(t, []string{approval.ID}, due(*approval.Reminders.Next, 10), "a reminder due now is due")
	assert.Empty(t, due(approval.Reminders.Next.Add(-time.Nanosecond), 10), "one due just after now is not")
	assert.Equal(t, []string{approval.ID, blocking.ID}, due(start.Add(15*time.Minute), 10), "earliest first; answered ones are not due")
	assert.Equal(t, []string{approval.ID}, due(start.Add(15*time.Minute), 1), "up to the limit")
	assert.Equal(t, []string{approval.ID, blocking.ID}, due(start.Add(24*time.Hour), 0), "limit 0: all")
}

// sweep runs the reminder sweep at the env's clock and returns how many
// it sent.
func (e *env) sweep(t *testing.T) int {
	t.Helper()
	n, err := e.svc.Questions.SweepReminders(context.Background())
	require.NoError(t, err)
	return n
}

// reminderEvents returns the reminder and escalation events of question
// id on the log, in order.
func (e *env) reminderEvents(t *testing.T, id string) []*hitl.Event {
	t.Helper()
	evs, err := e.store.Events(context.Background(), 0, 0)
	require.NoError(t, err)
	var out []*hitl.Event
	for _, ev := range evs {
		if ev.QuestionID == id && (ev.Type == hitl.EventQuestionReminded || ev.Type == hitl.EventQuestionEscalated) {
			out = append(out, ev)
		}
	}
	return out
}

func testRemindOnce(t *testing.T, e *env) {
	ctx := context.Background()
	start := e.clock.Now()
	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(60)})
	soon := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(60)})
	e.clock.Set(start.Add(10*time.Minute - time.Second))
	e.answer(t, soon.ID, "answered just before its reminder")

	e.clock.Set(start.Add(10*time.Minute + time.Second))
	assert.Equal(t, 1, e.sweep(t), "the first reminder")
	assert.Equal(t, 0, e.sweep(t), "never twice")
	evs := e.reminderEvents(t, q.ID)
	require.Len(t, evs, 1)
	assert.Equal(t, hitl.EventQuestionReminded, evs[0].Type)
	assert.Equal(t, 1, evs[0].Count)
	assert.Empty(t, e.reminderEvents(t, soon.ID), "a question answered before its reminder gets none")

	e.clock.Set(start.Add(20*time.Minute + time.Second))
	assert.Equal(t, 1, e.sweep(t), "the escalation")
	assert.Equal(t, 0, e.sweep(t))
	got, err := e.store.Question(ctx, q.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"U0ESC"}, got.EscalatedTo, "escalation adds its people as answerers")
	assert.True(t, got.Escalated())
	evs = e.reminderEvents(t, q.ID)
	require.Len(t, evs, 2)
	assert.Equal(t, hitl.EventQuestionEscalated, evs[1].Type)
	require.NotNil(t, evs[1].Question)
	assert.Equal(t, []string{"U0ESC"}, evs[1].Question.EscalatedTo)

	e.clock.Set(start.Add(30*time.Minute + time.Second))
	assert.Equal(t, 1, e.sweep(t), "the last reminder")
	e.clock.Set(start.Add(59 * time.Minute))
	assert.Equal(t, 0, e.sweep(t), "none after the last")
	assert.Len(t, e.reminderEvents(t, q.ID), 3)
	due, err := e.store.DueReminders(ctx, e.clock.Now().Add(24*time.Hour), 0)
	require.NoError(t, err)
	assert.Empty(t, due, "a question with nothing left is not in the index")
}

func testRemindLate(t *testing.T, e *env) {
	start := e.clock.Now()
	q := e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(60)})
	e.clock.Set(start.Add(35 * time.Minute)) // both reminders and the escalation passed
	assert.Equal(t, 1, e.sweep(t))
	assert.Equal(t, 0, e.sweep(t))
	evs := e.reminderEvents(t, q.ID)
	require.Len(t, evs, 1, "one notification, not a burst")
	assert.Equal(t, hitl.EventQuestionEscalated, evs[0].Type)
	assert.Equal(t, 2, evs[0].Count, "every reminder due is done by it")
}

func testRemindIdle(t *testing.T, e *env) {
	ctx := context.Background()
	e.ask(t, "run-1", hitl.NewQuestion{Question: "Q?", TimeoutMinutes: minutes(60)})
	last, err := e.store.LastSeq(ctx)
	require.NoError(t, err)
	e.clock.Add(5 * time.Minute)
	assert.Equal(t, 0, e.sweep(t))
	after, err := e.store.LastSeq(ctx)
	require.NoError(t, err)
	assert.Equal(t, last, after)
}
