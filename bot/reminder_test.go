package bot

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNudgeDeliveries(t *testing.T) {
	b := newBot(Config{DefaultChannel: "C0HITL", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, &fakeAPI{}, nil, memstore.NewOutbox())
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	escalated := func(channel string) *hitl.Question {
		return &hitl.Question{ID: "q_1", Status: hitl.StatusPending, Assignees: []string{"U0BOB"}, EscalatedTo: []string{"U0ESC", "S0OPS"},
			Reminders: &hitl.ReminderPlan{EscalateTo: []string{"U0ESC", "S0OPS"}, EscalationChannel: channel, EscalatedAt: &at}}
	}
	kinds := func(ds []hitl.Delivery) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Kind+" "+d.Target)
		}
		return out
	}
	for name, tc := range map[string]struct {
		ev   *hitl.Event
		want []string
	}{
		"a reminder is a thread reply at each message": {
			&hitl.Event{Type: hitl.EventQuestionReminded, QuestionID: "q_1", Question: &hitl.Question{ID: "q_1", Status: hitl.StatusPending, Assignees: []string{"U0BOB", "S0OPS"}}},
			[]string{"remind U0BOB", "remind C0HITL"}},
		"an escalation updates, says so and posts to the escalation channel": {
			&hitl.Event{Type: hitl.EventQuestionEscalated, QuestionID: "q_1", Question: escalated("C0ESC")},
			[]string{"update U0BOB", "escalate U0BOB", "post C0ESC"}},
		"without an escalation channel, the people added get it by DM": {
			&hitl.Event{Type: hitl.EventQuestionEscalated, QuestionID: "q_1", Question: escalated("")},
			[]string{"update U0BOB", "escalate U0BOB", "post U0ESC"}},
		"a reassignment reaches the old messages and the new assignees": {
			&hitl.Event{Type: hitl.EventQuestionReassigned, QuestionID: "q_1", HandedFrom: []string{"U0BOB"},
				Question: &hitl.Question{ID: "q_1", Status: hitl.StatusPending, Assignees: []string{"U0CAROL"}}},
			[]string{"handed U0CAROL", "handed U0BOB"}},
	} {
		t.Run(name, func(t *testing.T) {
			ds, err := b.deliveriesFor(context.Background(), tc.ev)
			require.NoError(t, err)
			assert.Equal(t, tc.want, kinds(ds))
		})
	}
}
