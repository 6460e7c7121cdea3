package blocks

import (
	"encoding/json"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// Modal callback ids, input block ids and the input's action id.
const (
	CallbackAnswer  = "hitl/answer"  // AnswerModal
	CallbackDeny    = "hitl/deny"    // DenyModal
	CallbackApprove = "hitl/approve" // ApproveModal
	CallbackReply   = "hitl/reply"   // ReplyModal

	BlockAnswer  = "answer"  // AnswerModal's input block
	BlockReason  = "reason"  // DenyModal's input block
	BlockMessage = "message" // ApproveModal's input block
	BlockReply   = "reply"   // ReplyModal's input block

	InputActionID = "value" // the plain_text_input in each of them
)

// metadata is a modal's private_metadata: which question, and the message
// to update (empty when the modal was opened from the Home tab).
type metadata struct {
	Q  string `json:"q"`
	C  string `json:"c"`
	TS string `json:"ts"`
}

// PrivateMetadata encodes a modal's private_metadata:
// {"q":"<questionId>","c":"<channel>","ts":"<message ts>"}. Should channel
// and ts make it longer than MaxPrivateMetadata, they are left empty.
func PrivateMetadata(questionID, channel, ts string) string {
	m := metadata{Q: questionID, C: channel, TS: ts}
	b, _ := json.Marshal(m)
	if Len(string(b)) > MaxPrivateMetadata {
		m.C, m.TS = "", ""
		b, _ = json.Marshal(m)
	}
	return string(b)
}

// AnswerModal is the "Answer…" modal: the question and a text input (one
// line for sensitive questions, whose value is never shown or kept after
// delivery; Slack has no masked input). Any response type can be answered
// by typing: an option's label, yes or no, approve or deny.
func AnswerModal(q *hitl.Question, channel, ts string) slack.ModalViewRequest {
	q = orEmpty(q)
	if q.MultiSelect && q.ResponseType == hitl.ChoiceResponse && len(q.Options) > 0 {
		return ChoicesModal(q, channel, ts)
	}
	in := textInput("Type your answer", !sensitive(q))
	block := slack.NewInputBlock(BlockAnswer, plainText("Your answer"), answerHint(q), in)
	return modal(q, channel, ts, CallbackAnswer, "Answer question", "Send answer", block)
}

// DenyModal asks for an optional reason before denying an approval.
func DenyModal(q *hitl.Question, channel, ts string) slack.ModalViewRequest {
	q = orEmpty(q)
	block := slack.NewInputBlock(BlockReason, plainText("Reason (optional)"),
		plainText("The agent receives it with the denial."), textInput("Why not?", true))
	block.Optional = true
	return modal(q, channel, ts, CallbackDeny, "Deny request", "Deny", block)
}

// ApproveModal asks for an optional message before approving.
func ApproveModal(q *hitl.Question, channel, ts string) slack.ModalViewRequest {
	q = orEmpty(q)
	block := slack.NewInputBlock(BlockMessage, plainText("Message to the agent (optional)"),
		plainText("The agent receives it with the approval."), textInput("Go ahead, but…", true))
	block.Optional = true
	return modal(q, channel, ts, CallbackApprove, "Approve request", "Approve", block)
}

// ReplyModal answers an approval with text for the agent instead of a
// verdict: the agent is not approved and reads the text (Claude Code and
// Codex as a deny's message, MCP and the SDKs as the reply).
func ReplyModal(q *hitl.Question, channel, ts string) slack.ModalViewRequest {
	q = orEmpty(q)
	block := slack.NewInputBlock(BlockReply, plainText("Reply to the agent"),
		plainText("Not an approval: the agent does not carry this out and reads your reply instead."),
		textInput("Use the staging database instead", true))
	return modal(q, channel, ts, CallbackReply, "Reply to agent", "Send reply", block)
}

func modal(q *hitl.Question, channel, ts, callbackID, title, submit string, input *slack.InputBlock) slack.ModalViewRequest {
	text, _ := escapeCut(strings.TrimSpace(q.Question), MaxSectionText, MarkerCut)
	if text == "" {
		text = "_(no question text)_"
	}
	bs := []slack.Block{section(text)}
	if s, _ := errorText(q); s != "" {
		bs = append(bs, section(s))
	}
	if op := operationSection(q); op != nil {
		bs = append(bs, op)
	}
	bs = append(bs, meta(q, MessageOptions{}))
	if sensitive(q) && callbackID == CallbackAnswer {
		bs = append(bs, contextBlock(mrkdwn("🔒 *Sensitive.* Slack cannot mask what you type here, "+
			"but the value goes only to the agent that asked: it is never shown in Slack and is erased once delivered.")))
	}
	bs = append(bs, input)
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		Title:           plainText(Truncate(title, MaxModalTitle, "")),
		Submit:          plainText(Truncate(submit, MaxModalButton, "")),
		Close:           plainText("Cancel"),
		CallbackID:      callbackID,
		PrivateMetadata: PrivateMetadata(q.ID, channel, ts),
		Blocks:          slack.Blocks{BlockSet: bs},
	}
}

func textInput(placeholder string, multiline bool) *slack.PlainTextInputBlockElement {
	in := slack.NewPlainTextInputBlockElement(plainText(placeholder), InputActionID)
	in.Multiline = multiline
	in.MaxLength = MaxInputLength
	in.FocusOnLoad = true
	return in
}

// answerHint says what a typed answer may be.
func answerHint(q *hitl.Question) *slack.TextBlockObject {
	var s string
	switch {
	case sensitive(q):
		return nil // the context line above says it
	case q.ResponseType == hitl.BooleanResponse:
		s = "Type yes or no."
	case q.ResponseType == hitl.ApprovalResponse:
		s = "Type approve or deny."
	case q.ResponseType == hitl.ChoiceResponse && len(q.Options) > 0:
		labels := make([]string, 0, len(q.Options))
		for _, o := range q.Options {
			labels = append(labels, oneLine(o.Label))
		}
		s = plain("Type one of: "+strings.Join(labels, ", "), MaxInputHint, "")
	default:
		return nil
	}
	return plainText(s)
}
