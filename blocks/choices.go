package blocks

import (
	"strconv"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// Multi-select choice questions are answered in a modal: checkboxes (up to
// MaxCheckboxes options) or a multi_static_select, whose option values are
// the options' indexes.
const (
	CallbackChoices = "hitl/choices" // ChoicesModal
	BlockChoices    = "choices"      // its input block
	SubmitChoices   = "choices"      // Submission.Kind: Values are the chosen options' indexes

	// MaxCheckboxes is the most options a checkboxes element holds.
	MaxCheckboxes = 10
)

// ChoicesModal lets a person pick several of a multi-select question's
// options.
func ChoicesModal(q *hitl.Question, channel, ts string) slack.ModalViewRequest {
	q = orEmpty(q)
	n := min(len(q.Options), MaxSelectOptions)
	opts := make([]*slack.OptionBlockObject, n)
	for i := range n {
		o := q.Options[i]
		var desc *slack.TextBlockObject
		if d := strings.TrimSpace(o.Description); d != "" {
			desc = plainText(plain(oneLine(d), MaxOptionDesc, ""))
		}
		opts[i] = slack.NewOptionBlockObject(strconv.Itoa(i), plainText(plain(optionLabel(o, i), MaxOptionText, "")), desc)
	}
	var el slack.BlockElement
	if n <= MaxCheckboxes {
		el = slack.NewCheckboxGroupsBlockElement(InputActionID, opts...)
	} else {
		el = slack.NewOptionsMultiSelectBlockElement(slack.MultiOptTypeStatic, plainText("Choose options…"), InputActionID, opts...)
	}
	block := slack.NewInputBlock(BlockChoices, plainText("Choose one or more"), nil, el)
	return modal(q, channel, ts, CallbackChoices, "Answer question", "Send answer", block)
}
