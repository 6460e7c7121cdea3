package blocks

import (
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// Approval action ids of an operation the policy asked about.
const (
	ActionApproveAlways = ActionPrefix + string(VerbApproveAlways) // approve and learn a rule (confirm first)
	ActionEdit          = ActionPrefix + string(VerbEdit)          // open EditModal
)

// Verbs of an operation approval.
const (
	VerbApproveAlways Verb = "approve_always"
	VerbEdit          Verb = "edit"
)

// operationSection shows the operation an approval is about: type, risk,
// agent, the rule that asked, and the resource in a code span (a code block
// when it spans lines or holds backticks). edited labels the resource as
// the original.
func operationSection(q *hitl.Question) slack.Block {
	op := q.Operation
	if op == nil {
		return nil
	}
	var facts []string
	add := func(name, v string) {
		if v = oneLine(v); v != "" {
			e, _ := escapeCut(v, 150, ellipsis)
			facts = append(facts, "*"+name+":* "+e)
		}
	}
	add("Operation", string(op.Type))
	add("Agent rates it", riskText(op.Risk))
	add("Agent", op.Agent)
	add("Rule", q.Rule)
	text := riskLines(q.Risks) + strings.Join(facts, " · ")
	parts := partsText(q.Parts, MaxSectionText/2)
	if in := op.Input(); in != nil && !edited(q) {
		text += "\n" + inputText(in, MaxSectionText-Len(text)-Len(parts)-2)
	} else if op.Resource != "" {
		label := "*Resource*"
		if edited(q) {
			label = "*Resource, as the agent asked*"
		}
		flagged := flagLine("The resource", op.Resource)
		text += "\n" + label + "\n" + code(op.Resource, MaxSectionText-Len(text)-Len(label)-Len(parts)-Len(flagged)-3) + flagged
	}
	if parts != "" {
		text += "\n" + parts
	}
	if room := MaxSectionText - Len(text) - 20; q.RunGrant != nil && room > 40 {
		g, _ := escapeCut(q.RunGrant.Text(), room, ellipsis)
		text += "\n*When it runs:* " + g
	}
	return section(text)
}

// inputText shows a tool's input as its fields within n characters: "•
// *path:* `notes.md`", a value of several lines as a code block.
func inputText(in []hitl.InputField, n int) string {
	lines := []string{"*Input*"}
	for _, f := range in {
		key, _ := escapeCut(oneLine(f.Key), 60, ellipsis)
		lines = append(lines, "• *"+key+":* "+code(f.Value, 600))
	}
	return Truncate(strings.Join(lines, "\n"), n, "\n"+MarkerCut)
}

// maxShownRisks keeps an operation's risks within a few lines.
const maxShownRisks = 5

// riskLines leads an operation with what it does that a person should
// weigh, one line each, riskiest first: "⚠️ *deletes files: build*".
func riskLines(risks []hitl.RiskLabel) string {
	var b strings.Builder
	for i, r := range risks {
		if i == maxShownRisks {
			b.WriteString("…and " + itoa(len(risks)-i) + " more risks\n")
			break
		}
		e, _ := escapeCut(oneLine(r.Text), 200, ellipsis)
		b.WriteString("⚠️ *" + e + "*\n")
	}
	return b.String()
}

// maxShownParts keeps a long command line's parts within a section.
const maxShownParts = 12

// partsText shows how the policy decided each part of a command line,
// within n characters: "✅ `git status` — rule safe-git". A line of one
// part that the policy could see through shows nothing more.
func partsText(parts []hitl.DecisionPart, n int) string {
	if !hitl.PartsTellMore(parts) {
		return ""
	}
	lines := []string{"*How the policy decided each part*"}
	for i, p := range parts {
		if i == maxShownParts {
			lines = append(lines, "…and "+itoa(len(parts)-i)+" more parts")
			break
		}
		mark := "❓"
		switch p.Effect {
		case hitl.EffectAllow:
			mark = "✅"
		case hitl.EffectDeny:
			mark = "⛔"
		}
		reason, _ := escapeCut(oneLine(p.Reason), 120, ellipsis)
		line := mark + " " + p.Verb() + code(oneLine(p.Text), 160) + " — " + reason
		if len(p.Risks) > 0 {
			risk, _ := escapeCut(oneLine(p.Risks[0].Text), 120, ellipsis)
			line += " · ⚠️ " + risk
		}
		lines = append(lines, line)
	}
	return Truncate(strings.Join(lines, "\n"), n, "\n"+MarkerCut)
}

func riskText(r hitl.Risk) string {
	switch r {
	case hitl.RiskCritical:
		return "🔴 critical"
	case hitl.RiskHigh:
		return "🟠 high"
	case hitl.RiskMedium:
		return "🟡 medium"
	case hitl.RiskLow:
		return "🟢 low"
	}
	return string(r)
}

// code shows s verbatim, escaped, in a code span when it is one line
// without backticks, else in a code block; cut visibly to n characters.
func code(s string, n int) string {
	if !strings.ContainsAny(s, "`\n") {
		e, _ := escapeCut(s, n-2, MarkerCut)
		return "`" + e + "`"
	}
	e, _ := escapeCut(unfence(s), n-8, "\n"+MarkerCut)
	return "```\n" + e + "\n```"
}

func edited(q *hitl.Question) bool {
	return q.Operation != nil && q.Response.WasEdited()
}

// editedSection shows the input a person approved after editing it; an
// edited file change's new text, which the agent asks again about with
// its diff.
func editedSection(q *hitl.Question) slack.Block {
	if !edited(q) {
		return nil
	}
	head, text := "✏️ *Edited before approval — the agent uses:*\n", q.Response.Edited
	if q.Response.EditedContent != "" {
		head = "✏️ *New text edited before approval — the agent shows its diff and asks again:*\n"
		if text != "" {
			head = "✏️ *Path and new text edited before approval — the agent shows the diff against the new path and asks again:*\n"
		}
		text = q.Response.EditedContent
	}
	e, _ := escapeCut(unfence(text), MaxSectionText-Len(head)-8, "\n"+MarkerCut)
	return section(head + "```\n" + e + "\n```")
}

// quorumBlock says how many approvals a question that needs several has,
// and whose: "🗳 1 of 2 approvals: @alice".
func quorumBlock(q *hitl.Question) slack.Block {
	if !q.NeedsSeveral() || !q.Pending() {
		return nil
	}
	text := "🗳 *" + q.Tally() + "*"
	if len(q.Approvals) > 0 {
		who := make([]string, 0, len(q.Approvals))
		for _, g := range q.Approvals[:min(len(q.Approvals), 20)] {
			who = append(who, actor(g.By))
		}
		text += ": " + strings.Join(who, ", ")
	}
	if len(q.Approvers) > 0 {
		text += " · approvers: " + mentions(q.Approvers[:min(len(q.Approvers), 20)])
	}
	return contextBlock(mrkdwn(Truncate(text, MaxTextObject, ellipsis)))
}

// operationInputs are the buttons of an approval the policy asked for:
// Approve, Approve & always allow (its confirmation names the rule it
// adds), Edit… when the input can be edited, Deny…, Approve with message…,
// Reply to agent… (text instead of a verdict).
func operationInputs(q *hitl.Question) []slack.BlockElement {
	els := []slack.BlockElement{button(ActionApprove, "", "✅ Approve", slack.StylePrimary)}
	if q.Learnable {
		// Offered only where the policy lets a learned rule apply.
		always := button(ActionApproveAlways, "", "✅ Approve & always allow", "")
		always.Confirm = confirm("Always allow this?", AlwaysText(q),
			"Approve & always allow", "Cancel", slack.StylePrimary)
		els = append(els, always)
	}
	if Editable(q) {
		els = append(els, button(ActionEdit, "", "✏️ Edit…", ""))
	}
	return append(els,
		button(ActionDeny, "", "⛔ Deny…", slack.StyleDanger),
		button(ActionApproveMsg, "", "Approve with message…", ""),
		button(ActionReply, "", "↩️ Reply to agent…", ""))
}

// Editable reports whether q offers Edit…: an editable operation decided
// by one person, whose input fits a text input.
func Editable(q *hitl.Question) bool {
	return q.Editable() && Len(q.Operation.Resource) <= MaxInputLength
}

// AlwaysText is what "Approve & always allow" adds, in plain words:
// "Always allow exactly the shell command `rm -rf /tmp/build-41` from
// api:ci". A command is shown in the parsed form the rule holds. Plain
// text, at most MaxConfirmText characters.
func AlwaysText(q *hitl.Question) string {
	op := q.Operation
	if op == nil {
		return ""
	}
	r := &hitl.LearnedRule{Agent: op.Agent, OpType: op.Type, Resource: op.Resource}
	if op.Type == hitl.OpShell && len(q.Parts) == 1 {
		r.Resource = q.Parts[0].Text
	}
	head := "Always allow "
	return head + ruleWords(r, MaxConfirmText-Len(head), false)
}

// ruleWords says what a learned rule allows, within n characters:
// "exactly the shell command `make test` from api:ci". With escape, for
// mrkdwn.
func ruleWords(r *hitl.LearnedRule, n int, escape bool) string {
	show := func(s string, max int) string {
		s = oneLine(s)
		if escape {
			e, _ := escapeCut(s, max, ellipsis)
			return e
		}
		return Truncate(clean(s), max, ellipsis)
	}
	from := ""
	if r.Agent != "" {
		from = " from " + show(r.Agent, 100)
	}
	typ := show(string(r.OpType), 64)
	var what string
	switch {
	case r.OpType == hitl.OpShell:
		what = "exactly the shell command "
	case r.Resource == "":
		return Truncate(typ+" operations with no resource"+from, n, ellipsis)
	default:
		what = typ + " on exactly "
	}
	room := n - Len(what) - Len(from) - 2
	res := strings.ReplaceAll(show(r.Resource, max(room, 1)), "`", "'")
	return Truncate(what+"`"+res+"`"+from, n, ellipsis)
}

// Edit modal: callback id and input blocks.
const (
	CallbackEdit       = "hitl/edit"
	BlockEdited        = "edited"
	BlockEditedContent = "edited_content"
)

// EditModal shows an operation's input prefilled, to edit before
// approving; a file change's new text too, when it fits a text input.
func EditModal(q *hitl.Question, channel, ts string) slack.ModalViewRequest {
	q = orEmpty(q)
	res := ""
	if q.Operation != nil {
		res = q.Operation.Resource
	}
	in := textInput("", true)
	in.Placeholder = nil
	in.InitialValue = Truncate(res, MaxInputLength, "")
	block := slack.NewInputBlock(BlockEdited, plainText("Input to approve"),
		plainText("The agent runs this instead of what it asked. The original stays on record."), in)
	v := modal(q, channel, ts, CallbackEdit, "Edit and approve", "Approve edited", block)
	if !contentEditable(q) {
		return v
	}
	block.Label = plainText("Path")
	block.Hint = plainText("The file the change writes. The original stays on record.")
	text := textInput("", true)
	text.Placeholder, text.FocusOnLoad = nil, false
	text.InitialValue = q.Operation.Content
	content := slack.NewInputBlock(BlockEditedContent, plainText("New text"),
		plainText("An edited change does not run on this approval: the agent shows you its diff against the file and asks again."), text)
	v.Blocks.BlockSet = append(v.Blocks.BlockSet, content)
	return v
}

// contentEditable reports whether the edit modal offers q's file change's
// new text: editable, and short enough for a text input.
func contentEditable(q *hitl.Question) bool {
	return q.Operation != nil && q.Operation.ContentEditable() && Len(q.Operation.Content) <= MaxInputLength
}
