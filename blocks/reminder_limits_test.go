package blocks

import (
	"fmt"
	"testing"

	"github.com/hitlbot/hitl"
)

// TestReminderLimits: the thread replies that re-notify, and a question
// handed on and escalated, fit Slack's limits and ping nobody else
// whatever the question, its assignees, who handed it and whom
// escalation added.
func TestReminderLimits(t *testing.T) {
	for _, hostileInputs := range []bool{false, true} {
		for name, q := range allShapes(hostileInputs) {
			q.EscalatedTo, q.HandedBy = []string{"U0HOMEUSER"}, "U0ANSWER1"
			if hostileInputs {
				q.EscalatedTo, q.HandedBy = hostileAssignees(), "api:"+hostile(300)
			}
			allowed := append(mentionTokens(append(q.Assignees, q.EscalatedTo...)...), "@U0ANSWER1", "@U0HOMEUSER")
			prefix := name
			if hostileInputs {
				prefix = "hostile_" + name
			}
			for _, n := range []Nudge{NudgeReminder, NudgeEscalation, NudgeHanded} {
				t.Run(prefix+"/"+string(n)+"_fits", func(t *testing.T) {
					validate(t, ReminderMessage(q, n, nil), allowed...)
				})
			}
			t.Run(prefix+"/routed_message_fits", func(t *testing.T) {
				validate(t, QuestionMessage(q, opts), allowed...)
			})
		}
	}
	t.Run("a reminder to the answerers of an unassigned question fits", func(t *testing.T) {
		q := question(hitl.Blocking, hitl.BooleanResponse)
		q.Assignees = nil
		var answerers []string // as many as config lists
		for i := range 300 {
			answerers = append(answerers, fmt.Sprintf("U%010d", i))
		}
		validate(t, ReminderMessage(q, NudgeReminder, answerers), mentionTokens(answerers...)...)
	})
}
