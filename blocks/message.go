package blocks

import (
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/slack-go/slack"
)

// MessageOptions are the presentation facts a renderer cannot read from the
// question.
type MessageOptions struct {
	// Now is the current time: used when a settled question has no
	// respondedAt, and for the Home tab's "updated" line.
	Now time.Time
	// MentionAssignees mentions the question's assignees (users and user
	// groups) in the top-level text and the message, so their phones buzz.
	// These are the only mentions this package ever renders.
	MentionAssignees bool
	// WebURL is the address of the web inbox (web.url): a pending
	// question links to its page there. Empty: no link.
	WebURL string
	// RunHandle is the question's run as people read it (its handle, as
	// hitl runs shows it; the ID line and the web page have the rest).
	// Empty: the run's id.
	RunHandle string
}

// run is q's run as people read it.
func (o MessageOptions) run(q *hitl.Question) string {
	if o.RunHandle != "" && strings.HasPrefix(q.RunID, o.RunHandle) {
		return o.RunHandle
	}
	return q.RunID
}

// Message is a chat message: Text is the notification fallback (mrkdwn,
// escaped), Blocks the Block Kit layout. Truncated reports that the
// question or its error details were cut; the bot then posts
// FullTextChunks(q) in the message's thread.
type Message struct {
	Text      string        `json:"text"`
	Blocks    []slack.Block `json:"blocks"`
	Truncated bool          `json:"truncated,omitempty"`
}

// QuestionMessage renders a pending question as a message: header, the
// question (escaped, cut at MaxSectionText), options, error details, context
// (assignees, agent, run, issue, step, deadline) and the input that fits its
// response type. A settled question renders as SettledMessage.
func QuestionMessage(q *hitl.Question, opts MessageOptions) Message {
	q = orEmpty(q)
	if !q.Pending() {
		return SettledMessage(q, opts)
	}
	bs, cut := body(q, opts)
	if n := notice(q); n != nil {
		bs = append(bs[:1], append([]slack.Block{n}, bs[1:]...)...) // under the header
	}
	if sensitive(q) {
		bs = append(bs, contextBlock(mrkdwn("🔒 *Sensitive.* Answer with the button: the value goes only to the agent that asked. "+
			"It is never shown in Slack and is erased once delivered.")))
	} else if s := suggestions(q); s != nil {
		bs = append(bs, s)
	}
	if qb := quorumBlock(q); qb != nil {
		bs = append(bs, qb)
	}
	if in := inputs(q); in != nil {
		bs = append(bs, in)
		if q.ResponseType == hitl.TextResponse && !sensitive(q) {
			bs = append(bs, contextBlock(mrkdwn("…or reply in this thread.")))
		}
	}
	if l := webLink(q, opts); l != nil {
		bs = append(bs, l)
	}
	return Message{Text: fallback(q, opts), Blocks: bs, Truncated: cut}
}

// notice renders q.Notice (why a question waits again) as a section under
// the header, or nil.
func notice(q *hitl.Question) *slack.SectionBlock {
	const head = "⚠️ "
	text, _ := escapeCut(oneLine(q.Notice), MaxSectionText-Len(head), ellipsis)
	if text == "" {
		return nil
	}
	return section(head + text)
}

// body renders what a question message and its settled form share: header,
// question, options, error details and the context line.
func body(q *hitl.Question, opts MessageOptions) ([]slack.Block, bool) {
	bs := []slack.Block{slack.NewHeaderBlock(plainText(headerText(q)))}
	flagged := flagLine("The question", q.Question)
	text, cut := escapeCut(strings.TrimSpace(q.Question), MaxSectionText-Len(flagged), MarkerThread)
	if text == "" {
		text = "_(no question text)_"
	}
	bs = append(bs, section(text+flagged))
	if op := operationSection(q); op != nil {
		bs = append(bs, op)
	}
	bs = append(bs, diffSections(q, opts)...)
	if s := optionsText(q); s != "" {
		bs = append(bs, section(s))
	}
	if s, c := errorText(q); s != "" {
		bs = append(bs, section(s))
		cut = cut || c
	}
	bs = append(bs, meta(q, opts))
	if r := routing(q); r != nil {
		bs = append(bs, r)
	}
	return bs, cut
}

func headerText(q *hitl.Question) string {
	title := typeEmoji(q.Type) + " " + typeTitle(q.Type)
	if a := oneLine(q.Asker); a != "" {
		title += " from " + a
	}
	return plain(title, MaxHeaderText, "Question")
}

func typeEmoji(t hitl.QuestionType) string {
	switch t {
	case hitl.Approval:
		return "🔐"
	case hitl.ErrorRecovery:
		return "⚠️"
	case hitl.NonBlocking:
		return "💬"
	}
	return "❓"
}

func typeTitle(t hitl.QuestionType) string {
	switch t {
	case hitl.Approval:
		return "Approval needed"
	case hitl.ErrorRecovery:
		return "Agent needs help"
	case hitl.NonBlocking:
		return "Question (agent continues)"
	}
	return "Question"
}

// optionsText lists a choice question's options when the input cannot show
// them whole: a label or description too long for a select option,
// descriptions under buttons (which cannot show them), or more options than
// a select holds.
func optionsText(q *hitl.Question) string {
	if q.ResponseType != hitl.ChoiceResponse || len(q.Options) == 0 {
		return ""
	}
	buttons := len(q.Options) <= MaxButtonChoices
	need := len(q.Options) > MaxSelectOptions || q.MultiSelect
	for _, o := range q.Options {
		d := Len(oneLine(o.Description))
		need = need || Len(oneLine(o.Label)) > MaxOptionText || d > MaxOptionDesc || (buttons && d > 0)
	}
	if !need {
		return ""
	}
	const head = "*Options*"
	var b strings.Builder
	b.WriteString(head)
	for i, o := range q.Options {
		label, _ := escapeCut(oneLine(o.Label), 300, ellipsis)
		line := "\n• " + label
		if d := strings.TrimSpace(o.Description); d != "" {
			desc, _ := escapeCut(oneLine(d), 300, ellipsis)
			line += " — " + desc
		}
		more := "\n_…and " + itoa(len(q.Options)-i) + " more_"
		if Len(b.String())+Len(line)+Len(more) > MaxSectionText {
			b.WriteString(more)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// errorText renders error details in a code block, cut to fit a section.
func errorText(q *hitl.Question) (string, bool) {
	if q.Context == nil || strings.TrimSpace(q.Context.ErrorDetails) == "" {
		return "", false
	}
	const head, tail = "*Error details*\n```\n", "\n```"
	details, cut := escapeCut(unfence(strings.TrimSpace(q.Context.ErrorDetails)),
		MaxSectionText-Len(head)-Len(tail), "\n… (truncated — full text in the thread)")
	return head + details + tail, cut
}

// meta is the context line: assignees, who asked, the agent's name for
// itself, run, issue, project, step, deadline and default (while
// pending), question id: at most 10 elements (Slack's limit). Agent text
// goes in plain_text elements: shown as is, never formatted or linked.
func meta(q *hitl.Question, opts MessageOptions) *slack.ContextBlock {
	var els []slack.MixedElement
	if opts.MentionAssignees && len(q.Assignees) > 0 {
		els = append(els, mrkdwn("👤 "+mentions(q.Assignees[:min(len(q.Assignees), 40)])))
	}
	add := func(prefix, s string) {
		if s = oneLine(s); s != "" {
			els = append(els, plainText(prefix+plain(s, 200, "")))
		}
	}
	add("🔑 Asked by ", auth.PersonName(q.Asker))
	add("🤖 agent (says): ", claimedAgent(q))
	add("Run ", opts.run(q))
	if c := q.Context; c != nil {
		add("Issue ", c.IssueID)
		add("Project ", c.ProjectName)
		add("Step: ", c.CurrentStep)
	}
	if q.Pending() {
		els = append(els, timing(q)...)
	}
	add("ID ", q.ID)
	if len(els) == 0 {
		els = append(els, plainText("hitl"))
	}
	return contextBlock(els...)
}

// timing says how long a pending question waits and what happens then.
func timing(q *hitl.Question) []slack.MixedElement {
	var els []slack.MixedElement
	switch {
	case q.Type == hitl.NonBlocking:
		els = append(els, mrkdwn("💬 The agent did not wait"))
	case q.TimeoutAt != nil:
		els = append(els, mrkdwn("⏳ Answer by "+date(*q.TimeoutAt)))
	default:
		els = append(els, mrkdwn("⏳ No deadline"))
	}
	if d := defaultText(q); d != "" {
		prefix := "If unanswered: "
		if q.Type == hitl.NonBlocking {
			prefix = "It went on with: "
		}
		els = append(els, plainText(prefix+d))
	}
	return els
}

// defaultText shows a question's default response, or "".
func defaultText(q *hitl.Question) string {
	if q.DefaultResponse == nil || sensitive(q) {
		return ""
	}
	return plain(oneLine(valueText(q, q.DefaultResponse)), 200, "")
}

// suggestions lists a text question's suggested answers.
func suggestions(q *hitl.Question) *slack.ContextBlock {
	if q.Context == nil || q.ResponseType != hitl.TextResponse {
		return nil
	}
	var parts []string
	for _, s := range q.Context.SuggestedOptions {
		if s = oneLine(s); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return contextBlock(plainText(plain("Suggested: "+strings.Join(parts, " · "), MaxTextObject, "")))
}

// fallback is the top-level text, what a phone notification shows:
// "<mentions> ❓ <question> — from <agent> (run <id>)".
func fallback(q *hitl.Question, opts MessageOptions) string {
	var b strings.Builder
	if who := q.Listed(); opts.MentionAssignees && len(who) > 0 {
		b.WriteString(mentions(who[:min(len(who), 40)]) + " ")
	}
	text, _ := escapeCut(oneLine(q.Question), 300, ellipsis)
	b.WriteString(typeEmoji(q.Type) + " " + text)
	if a := oneLine(auth.PersonName(q.Asker)); a != "" {
		a, _ = escapeCut(a, 100, ellipsis)
		b.WriteString(" — from " + a)
	}
	if a := oneLine(claimedAgent(q)); a != "" {
		a, _ = escapeCut(a, 100, ellipsis)
		b.WriteString(" (agent says: " + a + ")")
	}
	if id := oneLine(opts.run(q)); id != "" {
		id, _ = escapeCut(id, 100, ellipsis)
		b.WriteString(" (run " + id + ")")
	}
	return b.String()
}

// FullTextChunks returns the question's full text, escaped, in chunks of at
// most MaxSectionText characters (cut at line or word breaks where
// possible), followed by the error details in code blocks. The bot posts
// them in the thread when Message.Truncated is set.
func FullTextChunks(q *hitl.Question) []string {
	q = orEmpty(q)
	chunks := split(strings.TrimSpace(q.Question), MaxSectionText)
	if q.Context != nil && strings.TrimSpace(q.Context.ErrorDetails) != "" {
		const head, tail = "```\n", "\n```"
		for _, c := range split(unfence(strings.TrimSpace(q.Context.ErrorDetails)), MaxSectionText-Len(head)-Len(tail)) {
			chunks = append(chunks, head+c+tail)
		}
	}
	return chunks
}

// claimedAgent is the name an agent gave itself (context.agent): a
// claim, shown labelled as one beside who really asked (q.Asker, the
// token or person hitl identified), never in its place. "" when it says
// nothing new.
func claimedAgent(q *hitl.Question) string {
	if q.Context == nil {
		return ""
	}
	if a := strings.TrimSpace(q.Context.Agent); a != q.Asker {
		return a
	}
	return ""
}

func sensitive(q *hitl.Question) bool { return q.Sensitive || q.InputType == hitl.PasswordInput }

func orEmpty(q *hitl.Question) *hitl.Question {
	if q == nil {
		return &hitl.Question{}
	}
	return q
}
