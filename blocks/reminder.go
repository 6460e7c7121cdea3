package blocks

import (
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// Nudge is why a thread reply re-notifies people of a pending question.
type Nudge string

const (
	NudgeReminder   Nudge = "reminder"   // a reminder of the plan is due
	NudgeEscalation Nudge = "escalation" // nobody answered: more people may now
	NudgeHanded     Nudge = "handed"     // someone handed the question to others
)

// ReminderMessage renders the thread reply under a question's message that
// makes phones buzz again: it mentions who may answer (its assignees and
// the people escalation added, else answerers: the channel's configured
// answerers) and says why.
func ReminderMessage(q *hitl.Question, n Nudge, answerers []string) Message {
	q = orEmpty(q)
	who := q.Reminded(answerers)
	at := ""
	if len(who) > 0 {
		at = mentions(who[:min(len(who), 40)]) + " "
	}
	var text string
	switch n {
	case NudgeEscalation:
		text = "⏫ *Escalated:* nobody answered in time, so " + orSomeone(mentions(q.EscalatedTo)) + " can answer this now."
	case NudgeHanded:
		text = "👉 " + handedText(q) + ": over to you."
	default:
		text = "⏰ *Reminder:* this " + strings.ToLower(typeTitle(q.Type)) + " is still waiting for an answer."
		if q.TimeoutAt != nil && q.Type != hitl.NonBlocking {
			text += " Answer by " + date(*q.TimeoutAt) + "."
		}
	}
	return Message{Text: at + text, Blocks: []slack.Block{section(at + text)}}
}

// routing is the context line that says who a question was handed to
// and by whom, and who escalation added; nil when neither happened.
func routing(q *hitl.Question) *slack.ContextBlock {
	var els []slack.MixedElement
	if q.HandedBy != "" {
		els = append(els, mrkdwn("👉 "+handedText(q)))
	}
	if len(q.EscalatedTo) > 0 {
		els = append(els, mrkdwn("⏫ Escalated to "+mentions(q.EscalatedTo[:min(len(q.EscalatedTo), 40)])))
	}
	if len(els) == 0 {
		return nil
	}
	return contextBlock(els...)
}

// handedText is "Handed by <@X> to <@Y>".
func handedText(q *hitl.Question) string {
	by := q.HandedBy
	if slackID.MatchString(by) && by[0] != 'S' {
		by = "slack:" + by
	}
	return "Handed by " + actor(by) + " to " + orSomeone(mentions(q.Assignees[:min(len(q.Assignees), 40)]))
}

func orSomeone(s string) string {
	if s == "" {
		return "someone"
	}
	return s
}

// The reassign modal's callback id and input block id.
const (
	CallbackReassign = "hitl/reassign"
	BlockReassign    = "to"
)

// ReassignModal is the "Reassign…" modal: the question and a user picker.
// The person picked replaces the question's assignees; the service
// refuses someone who may not answer it.
func ReassignModal(q *hitl.Question, channel, ts string) slack.ModalViewRequest {
	q = orEmpty(q)
	picker := slack.NewOptionsSelectBlockElement(slack.OptTypeUser, plainText("Choose a person"), InputActionID)
	block := slack.NewInputBlock(BlockReassign, plainText("Hand this question to"),
		plainText("They replace whoever it is assigned to now, and are told at once."), picker)
	return modal(q, channel, ts, CallbackReassign, "Reassign question", "Reassign", block)
}
