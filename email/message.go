package email

import (
	"net/url"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/visible"
)

// Message is an email's subject and plain-text body.
type Message struct {
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

// maxQuestion bounds the question text quoted in a mail.
const maxQuestion = 2000

// Render is the mail of a reminder or escalation (nudge) of q, its run
// named run (its handle; empty: its id): what waits,
// for how long, and the link that opens it (webURL + /q/ID; no
// link without webURL). Agent text is quoted as plain text, cut at
// maxQuestion characters, its invisible and direction-changing characters
// shown and flagged.
func Render(q *hitl.Question, run string, nudge hitl.EventType, webURL string) Message {
	kind := "Question"
	if q.Type == hitl.Approval {
		kind = "Approval"
	}
	first := strings.Join(strings.Fields(q.Question), " ")
	if r := []rune(first); len(r) > 80 {
		first = string(r[:79]) + "…"
	}
	first = oneLine(first) // cut first, so that no code point is cut
	var b strings.Builder
	subject := "Reminder: " + kind + " waiting for you: " + first
	if nudge == hitl.EventQuestionEscalated {
		subject = "Escalated to you: " + kind + " nobody answered: " + first
		b.WriteString("Nobody answered this in time, so it was escalated to you: you may answer it now.\n\n")
	} else {
		b.WriteString("This is still waiting for an answer.\n\n")
	}
	text := strings.TrimSpace(q.Question)
	if r := []rune(text); len(r) > maxQuestion {
		text = string(r[:maxQuestion]) + "… (cut: open it for the full text)"
	}
	b.WriteString(quote(text) + "\n")
	if visible.Has(text) {
		b.WriteString("⚠ The question " + visible.Flag + "\n")
	}
	b.WriteString("\n")
	for _, r := range q.Risks {
		b.WriteString("Risk: " + oneLine(r.Text) + "\n")
	}
	if len(q.Risks) > 0 {
		b.WriteString("\n")
	}
	if q.Asker != "" {
		b.WriteString("Asked by: " + oneLine(auth.PersonName(q.Asker)) + "\n")
	}
	if run == "" || !strings.HasPrefix(q.RunID, run) {
		run = q.RunID
	}
	b.WriteString("Run: " + oneLine(run) + "\n")
	if q.TimeoutAt != nil {
		b.WriteString("Answer by: " + q.TimeoutAt.UTC().Format(time.RFC1123) + "\n")
	}
	b.WriteString("Question: " + q.ID + "\n")
	if link := Link(webURL, q.ID); link != "" {
		b.WriteString("\nOpen it: " + link + "\n")
	} else {
		b.WriteString("\nAnswer it in Slack, or with: hitl answer " + q.ID + " VALUE\n")
	}
	return Message{Subject: subject, Body: b.String()}
}

// Link is the web inbox's page of question id under webURL (its /q/ID),
// or "" without one.
func Link(webURL, id string) string {
	if webURL == "" {
		return ""
	}
	return strings.TrimRight(webURL, "/") + "/q/" + url.PathEscape(id)
}

// oneLine is s on one line, runs of spaces, tabs and newlines as one
// space, every other invisible or direction-changing character shown as
// its code point (<U+202E>, package visible).
func oneLine(s string) string {
	return strings.Join(strings.Fields(visible.Text(s)), " ")
}

// quote prefixes every line of s with "> ", each line oneLine.
func quote(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "> " + oneLine(l)
	}
	return strings.Join(lines, "\n")
}
