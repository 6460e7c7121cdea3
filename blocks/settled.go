package blocks

import (
	"strings"
	"time"

	"github.com/hitlbot/hitl"
)

// SettledMessage renders a question after its outcome: the same header,
// question and context, no inputs, and an outcome line: who answered, when,
// with what ("answer hidden" for sensitive questions), approved or denied
// with the message or reason, timed out with or without a default, or
// cancelled with the reason. A pending question renders as QuestionMessage.
func SettledMessage(q *hitl.Question, opts MessageOptions) Message {
	q = orEmpty(q)
	if q.Pending() {
		return QuestionMessage(q, opts)
	}
	bs, cut := body(q, opts)
	if e := editedSection(q); e != nil {
		bs = append(bs, e)
	}
	bs = append(bs, section(outcomeText(q, opts, MaxSectionText)))
	text, _ := escapeCut(oneLine(q.Question), 300, ellipsis)
	return Message{Text: outcomeShort(q) + ": " + text, Blocks: bs, Truncated: cut}
}

// outcomeText is the outcome line, mrkdwn, at most n characters.
func outcomeText(q *hitl.Question, opts MessageOptions, n int) string {
	at := opts.Now
	if q.RespondedAt != nil {
		at = *q.RespondedAt
	}
	by := " by " + actor(q.RespondedBy) + " at " + date(at)
	var head, value, note, notePrefix string
	switch q.Outcome() {
	case hitl.OutcomeApproved:
		head, note, notePrefix = "✅ *Approved*"+by, responseText(q), "\n💬 "
	case hitl.OutcomeDenied:
		head, note, notePrefix = "⛔ *Denied*"+by, responseText(q), "\nReason: "
	case hitl.OutcomeReplied:
		head, note, notePrefix = "↩️ *Replied to the agent* (not approved)"+by, responseText(q), "\n💬 "
	case hitl.OutcomeTimedOut:
		head = "⏱ *Timed out* at " + date(at) + " with no answer and no default"
	case hitl.OutcomeDefaulted:
		head, value = "⏱ *Timed out* at "+date(at)+"; default used", "x"
	case hitl.OutcomeCancelled:
		head, note, notePrefix = "🚫 *Cancelled*", oneLine(q.CancelReason), " — "
		if q.RespondedBy != "" {
			head += by
		} else {
			head += " at " + date(at)
		}
	default:
		head, value, note, notePrefix = "✅ *Answered*"+by, "x", responseText(q), "\nNote: "
	}
	if value != "" {
		value = answerText(q, q.Response, n-Len(head)-min(Len(note), 500)-Len(notePrefix))
	}
	out := head + value
	if note != "" {
		if s, _ := escapeCut(note, n-Len(out)-Len(notePrefix), MarkerCut); s != "" {
			out += notePrefix + s
		}
	}
	return out
}

// answerText renders an answer after the outcome head: ": *value*" when it
// is short and plain, the value on its own line otherwise, " (answer
// hidden)" for sensitive questions. At most n characters.
func answerText(q *hitl.Question, r *hitl.Response, n int) string {
	if r == nil {
		return ""
	}
	if sensitive(q) || r.Redacted {
		return " (answer hidden)"
	}
	v := strings.TrimSpace(valueText(q, r))
	switch {
	case v == "":
		return ""
	case Len(v) <= 200 && !strings.ContainsAny(v, "*_~`\n"):
		s, _ := escapeCut(v, 200, ellipsis)
		return ": *" + s + "*"
	}
	s, _ := escapeCut(v, n-2, MarkerCut)
	return ":\n" + s
}

// valueText is a response as a person reads it: a choice's option label,
// Yes or No, approve or deny, the text. Never call it for sensitive answers.
func valueText(q *hitl.Question, r *hitl.Response) string {
	if r == nil {
		return ""
	}
	switch q.ResponseType {
	case hitl.ChoiceResponse:
		if vals, ok := r.Value.([]any); ok {
			labels := make([]string, 0, len(vals))
			for _, v := range vals {
				s := (&hitl.Response{Value: v}).String()
				if o, ok := q.OptionFor(s); ok {
					s = o.Label
				}
				labels = append(labels, s)
			}
			return strings.Join(labels, ", ")
		}
		if vals, ok := r.Value.([]string); ok {
			return valueText(q, &hitl.Response{Value: toAny(vals)})
		}
		if o, ok := q.OptionFor(r.String()); ok {
			return o.Label
		}
	case hitl.BooleanResponse:
		if b, ok := r.Value.(bool); ok {
			if b {
				return "Yes"
			}
			return "No"
		}
	}
	return r.String()
}

// responseText is the answer's explanation (approval message, deny reason,
// note); none for sensitive questions, where it might hold the secret.
func responseText(q *hitl.Question) string {
	if q.Response == nil || sensitive(q) {
		return ""
	}
	return strings.TrimSpace(q.Response.Text)
}

// outcomeShort is the outcome for the top-level text and the Home tab.
func outcomeShort(q *hitl.Question) string {
	switch q.Outcome() {
	case hitl.OutcomeApproved:
		return "✅ Approved by " + actor(q.RespondedBy)
	case hitl.OutcomeDenied:
		return "⛔ Denied by " + actor(q.RespondedBy)
	case hitl.OutcomeReplied:
		return "↩️ Replied to by " + actor(q.RespondedBy)
	case hitl.OutcomeTimedOut:
		return "⏱ Timed out"
	case hitl.OutcomeDefaulted:
		return "⏱ Timed out, default used"
	case hitl.OutcomeCancelled:
		return "🚫 Cancelled"
	case hitl.OutcomePending:
		return typeEmoji(q.Type) + " Waiting"
	}
	return "✅ Answered by " + actor(q.RespondedBy)
}

// Settlement is how a question left pending: what a late click is told.
type Settlement struct {
	Status hitl.Status
	By     string    // actor, as in Question.RespondedBy
	At     time.Time // zero if unknown
}

// SettlementOf returns how q was settled.
func SettlementOf(q *hitl.Question) Settlement {
	q = orEmpty(q)
	s := Settlement{Status: q.Status, By: q.RespondedBy}
	if q.RespondedAt != nil {
		s.At = *q.RespondedAt
	}
	return s
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
