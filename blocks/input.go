package blocks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// inputs returns the actions block that answers q, or nil when q cannot be
// answered here (settled, or an id too long for a block id). Its block id is
// "q:<id>": one actions block per question, so block ids stay unique in a
// Home tab that lists many.
func inputs(q *hitl.Question) slack.Block {
	if !q.Pending() || !validQuestionID(q.ID) {
		return nil
	}
	var els []slack.BlockElement
	switch q.ResponseType {
	case hitl.ApprovalResponse:
		if q.Operation != nil {
			els = operationInputs(q)
			break
		}
		els = append(els,
			button(ActionApprove, "", "✅ Approve", slack.StylePrimary),
			button(ActionDeny, "", "⛔ Deny…", slack.StyleDanger),
			button(ActionApproveMsg, "", "Approve with message…", ""),
			button(ActionReply, "", "↩️ Reply to agent…", ""))
	case hitl.BooleanResponse:
		els = append(els,
			button(ActionYes, "", "Yes", slack.StylePrimary),
			button(ActionNo, "", "No", ""))
	case hitl.ChoiceResponse:
		if q.MultiSelect && len(q.Options) > 0 {
			els = append(els, button(ActionAnswer, "", "☑️ Choose…", slack.StylePrimary))
			break
		}
		els = choiceInputs(q.Options)
	default:
		els = append(els, button(ActionAnswer, "", "Answer…", slack.StylePrimary))
	}
	if len(els) < MaxActionsElements {
		els = append(els, button(ActionReassign, "", "Reassign…", ""))
	}
	return slack.NewActionBlock(BlockID(q.ID), els...)
}

// choiceInputs renders up to MaxButtonChoices options as buttons, more as a
// static_select (with an Answer button when there are more options than a
// select holds).
func choiceInputs(opts []hitl.Option) []slack.BlockElement {
	switch {
	case len(opts) == 0:
		return []slack.BlockElement{button(ActionAnswer, "", "Answer…", slack.StylePrimary)}
	case len(opts) <= MaxButtonChoices:
		els := make([]slack.BlockElement, len(opts))
		for i, o := range opts {
			els[i] = button(ChooseActionID(i), strconv.Itoa(i), optionLabel(o, i), "")
		}
		return els
	}
	n := min(len(opts), MaxSelectOptions)
	options := make([]*slack.OptionBlockObject, n)
	for i := range n {
		var desc *slack.TextBlockObject
		if d := strings.TrimSpace(opts[i].Description); d != "" {
			desc = plainText(plain(oneLine(d), MaxOptionDesc, ""))
		}
		options[i] = slack.NewOptionBlockObject(strconv.Itoa(i), plainText(plain(optionLabel(opts[i], i), MaxOptionText, "")), desc)
	}
	sel := slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, plainText("Choose an option…"), ActionSelect, options...)
	els := []slack.BlockElement{sel}
	if len(opts) > MaxSelectOptions {
		els = append(els, button(ActionAnswer, "", "Type an answer…", ""))
	}
	return els
}

// optionLabel is the label shown for option i, cut to fit a button.
func optionLabel(o hitl.Option, i int) string {
	return plain(oneLine(o.Label), MaxButtonText, fmt.Sprintf("Option %d", i+1))
}

func button(actionID, value, text string, style slack.Style) *slack.ButtonBlockElement {
	b := slack.NewButtonBlockElement(actionID, value, plainText(Truncate(text, MaxButtonText, ellipsis)))
	b.Style = style
	return b
}

func plainText(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, true, false)
}

// mrkdwn is a mrkdwn text object with verbatim set: Slack still renders
// formatting and our own <@U…> and <!date…> tokens, but never turns bare
// text such as "@channel", a channel name or a URL into a mention or link.
func mrkdwn(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, s, false, true)
}

func section(text string) *slack.SectionBlock {
	return slack.NewSectionBlock(mrkdwn(text), nil, nil)
}

func contextBlock(els ...slack.MixedElement) *slack.ContextBlock {
	return slack.NewContextBlock("", els...)
}
