package email_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/email"
	"github.com/stretchr/testify/assert"
)

// groups is a hitl.Directory over a map; a group not in it cannot be
// read.
type groups map[string][]string

func (g groups) GroupMembers(_ context.Context, id string) ([]string, error) {
	m, ok := g[id]
	if !ok {
		return nil, errors.New("usergroups.users.list: no_such_subteam")
	}
	return m, nil
}

// TestMailRules: rows for who gets which reminder by email.
func TestMailRules(t *testing.T) {
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	plan := &hitl.ReminderPlan{EscalateTo: []string{"U0LEAD", "S0OPS"}, EscalatedAt: &at}
	dir := groups{"S0G": {"U0B", "U0C", "U0ME"}, "S0OPS": {"U0LEAD", "U0D"}, "S0ALL": {"U0ANS", "U0E"}}
	rows := []struct {
		name      string
		ev        hitl.EventType
		q         hitl.Question
		dir       hitl.Directory
		mailed    bool
		to        []string
		unread    []string
		answerers []string
	}{
		{"a blocking question's reminder goes to its assignees, a group's members each once", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.Blocking, Status: hitl.StatusPending, Assignees: []string{"U0A", "S0G", "U0B"}}, dir, true, []string{"U0A", "U0B", "U0C", "U0ME"}, nil, nil},
		{"an unassigned one's to the answerers, groups' members too", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.Approval, Status: hitl.StatusPending}, dir, true, []string{"U0ANS", "U0E"}, nil, []string{"U0ANS", "S0ALL"}},
		{"an escalation's to the people it added, a group as its members", hitl.EventQuestionEscalated,
			hitl.Question{Type: hitl.Approval, Status: hitl.StatusPending, Assignees: []string{"U0A"}, EscalatedTo: []string{"U0LEAD", "S0OPS"}, Reminders: plan},
			dir, true, []string{"U0LEAD", "U0D"}, nil, nil},
		{"a reminder after the escalation to the assignees and the escalated people, each once", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.Blocking, Status: hitl.StatusPending, Assignees: []string{"U0D", "S0G"}, EscalatedTo: []string{"U0LEAD", "S0OPS", "S0G"}, Reminders: plan},
			dir, true, []string{"U0D", "U0B", "U0C", "U0ME", "U0LEAD"}, nil, nil},
		{"never to the person who asked", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.Blocking, Status: hitl.StatusPending, Assignees: []string{"U0A", "U0ME"}, AskerUser: "U0ME"}, dir, true, []string{"U0A"}, nil, nil},
		{"nor to the asker as a member of a group", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.Blocking, Status: hitl.StatusPending, Assignees: []string{"S0G"}, Asker: "slack:U0ME"}, dir, true, []string{"U0B", "U0C"}, nil, nil},
		{"a group that cannot be read is said, the others mailed", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.Blocking, Status: hitl.StatusPending, Assignees: []string{"S0GONE", "U0A", "S0GONE"}}, dir, true, []string{"U0A"}, []string{"S0GONE"}, nil},
		{"without a directory (no Slack) no group has members to mail", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.Blocking, Status: hitl.StatusPending, Assignees: []string{"U0A", "S0G"}}, nil, true, []string{"U0A"}, []string{"S0G"}, nil},
		{"a non-blocking question is not mailed", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.NonBlocking, Status: hitl.StatusPending}, dir, false, nil, nil, nil},
		{"an error-recovery question is not mailed", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.ErrorRecovery, Status: hitl.StatusPending}, dir, false, nil, nil, nil},
		{"a settled one is not mailed", hitl.EventQuestionReminded,
			hitl.Question{Type: hitl.Blocking, Status: hitl.StatusAnswered}, dir, false, nil, nil, nil},
		{"nor anything but reminders and escalations", hitl.EventQuestionAsked,
			hitl.Question{Type: hitl.Blocking, Status: hitl.StatusPending}, dir, false, nil, nil, nil},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			assert.Equal(t, r.mailed, email.Mailed(r.ev, &r.q))
			if r.mailed {
				to, unread := email.Recipients(context.Background(), r.ev, &r.q, r.answerers, r.dir)
				assert.Equal(t, r.to, to)
				assert.Equal(t, r.unread, unread)
			}
		})
	}
}
