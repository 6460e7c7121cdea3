package hitl_test

import (
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
)

// TestMailRules: rows for who gets which reminder by email.
func TestMailRules(t *testing.T) {
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	plan := &hitl.ReminderPlan{EscalateTo: []string{"U0LEAD", "S0OPS"}, EscalatedAt: &at}
	rows := []struct {
		name      string
		ev        hitl.EventType
		q         hitl.Question
		mailed    bool
		to        []string
		answerers []string
	}{
		{"a blocking question's reminder goes to its assignees, not groups", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.Blocking, Status: hitl.StatusPending, Assignees: []string{"U0A", "S0G", "U0B"}}, true, []string{"U0A", "U0B"}, nil},
		{"an unassigned one's to the answerers", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.Approval, Status: hitl.StatusPending}, true, []string{"U0ANS"}, []string{"U0ANS", "S0ALL"}},
		{"an escalation's to the people it added", hitl.EventQuestionEscalated,
			hitl.Question{Type: hitl.Approval, Status: hitl.StatusPending, Assignees: []string{"U0A"}, EscalatedTo: []string{"U0LEAD", "S0OPS"}, Reminders: plan},
			true, []string{"U0LEAD"}, nil},
		{"never to the person who asked", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.Blocking, Status: hitl.StatusPending, Assignees: []string{"U0A", "U0ME"}, AskerUser: "U0ME"}, true, []string{"U0A"}, nil},
		{"a non-blocking question is not mailed", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.NonBlocking, Status: hitl.StatusPending}, false, nil, nil},
		{"an error-recovery question is not mailed", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.ErrorRecovery, Status: hitl.StatusPending}, false, nil, nil},
		{"a settled one is not mailed", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.Blocking, Status: hitl.StatusAnswered}, false, nil, nil},
		{"nor anything but reminders and escalations", hitl.EventQuestionAsked,
			hitl.Question{Type: hitl.Blocking, Status: hitl.StatusPending}, false, nil, nil},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			assert.Equal(t, r.mailed, hitl.Mailed(r.ev, &r.q))
			if r.mailed {
				assert.Equal(t, r.to, hitl.MailRecipients(r.ev, &r.q, r.answerers))
			}
		})
	}
}
