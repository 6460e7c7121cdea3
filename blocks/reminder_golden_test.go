package blocks

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/slack-go/slack"
)

// escalatedHanded is a question U0ANSWER1 handed to U024BE7LH and
// S0614TZR7, then escalated to U0HOMEUSER.
func escalatedHanded() *hitl.Question {
	q := question(hitl.Blocking, hitl.BooleanResponse)
	q.HandedBy = "U0ANSWER1"
	q.EscalatedTo = []string{"U0HOMEUSER"}
	return q
}

func TestReminderGolden(t *testing.T) {
	unassigned := question(hitl.Approval, hitl.ApprovalResponse)
	unassigned.Assignees = nil
	handedByToken := question(hitl.Blocking, hitl.TextResponse)
	handedByToken.HandedBy = "api:ops-bot"
	cases := []struct {
		name      string
		q         *hitl.Question
		n         Nudge
		answerers []string
	}{
		{"reminder_assigned", question(hitl.Blocking, hitl.BooleanResponse), NudgeReminder, nil},
		{"reminder_answerers", unassigned, NudgeReminder, []string{"U0ANSWER1"}},
		{"reminder_escalation", escalatedHanded(), NudgeEscalation, nil},
		{"reminder_handed", escalatedHanded(), NudgeHanded, nil},
		{"reminder_handed_by_token", handedByToken, NudgeHanded, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ReminderMessage(c.q, c.n, c.answerers)
			validate(t, m, allowedFixture...)
			golden(t, c.name, m)
		})
	}
	t.Run("message_escalated_handed", func(t *testing.T) {
		m := QuestionMessage(escalatedHanded(), opts)
		validate(t, m, allowedFixture...)
		golden(t, "message_escalated_handed", m)
	})
	t.Run("settled_escalated_handed", func(t *testing.T) {
		q := escalatedHanded()
		q.Status, q.Response, q.RespondedBy, q.RespondedAt = hitl.StatusAnswered, &hitl.Response{Type: hitl.BooleanResponse, Value: true}, "slack:U0HOMEUSER", at(20)
		m := QuestionMessage(q, opts)
		validate(t, m, allowedFixture...)
		golden(t, "settled_escalated_handed", m)
	})
}

func TestReassignModal(t *testing.T) {
	m := ReassignModal(question(hitl.Blocking, hitl.BooleanResponse), "C024BE91L", "1700000000.000100")
	validate(t, m, allowedFixture...)
	golden(t, "modal_reassign", m)

	t.Run("its submission names the person picked", func(t *testing.T) {
		values := map[string]map[string]slack.BlockAction{BlockReassign: {InputActionID: {SelectedUser: "U0HOMEUSER"}}}
		s, err := ParseSubmission(CallbackReassign, m.PrivateMetadata, values)
		if err != nil {
			t.Fatal(err)
		}
		if s.Kind != SubmitReassign || s.Value != "U0HOMEUSER" || s.QuestionID != "q_0123456789abcdef" || s.MessageTS != "1700000000.000100" {
			t.Errorf("submission %+v", s)
		}
	})
	t.Run("nobody picked is refused", func(t *testing.T) {
		_, err := ParseSubmission(CallbackReassign, m.PrivateMetadata, map[string]map[string]slack.BlockAction{})
		if fault.Code(err) != fault.EINVALID {
			t.Errorf("err %v", err)
		}
	})
	t.Run("the button parses", func(t *testing.T) {
		a, err := ParseAction(ActionReassign, BlockID("q_1"), "")
		if err != nil || a.Verb != VerbReassign || a.QuestionID != "q_1" {
			t.Errorf("%+v %v", a, err)
		}
	})
}
