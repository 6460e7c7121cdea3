package blocks

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/slack-go/slack"
)

// Submission kinds, one per modal.
const (
	SubmitAnswer  = "answer"  // AnswerModal: Value is the answer, never empty
	SubmitDeny    = "deny"    // DenyModal: Value is the optional reason
	SubmitApprove = "approve" // ApproveModal: Value is the optional message
	SubmitEdit    = "edit"    // EditModal: Value is the edited input, never empty
	SubmitReply   = "reply"   // ReplyModal: Value is the reply (required by the root)
	// SubmitReassign: ReassignModal; Value is the Slack user picked.
	SubmitReassign = "reassign"
)

// Submission is a parsed view_submission of one of this package's modals.
// Channel and MessageTS name the message to update; they are empty when the
// modal was opened from the Home tab.
type Submission struct {
	Kind       string
	QuestionID string
	Channel    string
	MessageTS  string
	Value      string // SubmitChoices: the chosen options' indexes, "0,2"
	// Content is SubmitEdit's new text of a file change (its own input
	// block, when the modal offers one).
	Content string
}

// ParseSubmission parses a view_submission: the view's callback id, its
// private_metadata and its state values (view.state.values). Anything
// malformed is an EINVALID *fault.Error; error messages never contain the
// submitted value.
func ParseSubmission(callbackID, privateMetadata string, values map[string]map[string]slack.BlockAction) (Submission, error) {
	var kind, block string
	switch callbackID {
	case CallbackAnswer:
		kind, block = SubmitAnswer, BlockAnswer
	case CallbackDeny:
		kind, block = SubmitDeny, BlockReason
	case CallbackApprove:
		kind, block = SubmitApprove, BlockMessage
	case CallbackEdit:
		kind, block = SubmitEdit, BlockEdited
	case CallbackReply:
		kind, block = SubmitReply, BlockReply
	case CallbackChoices:
		kind, block = SubmitChoices, BlockChoices
	case CallbackReassign:
		kind, block = SubmitReassign, BlockReassign
	default:
		return Submission{}, fault.Errorf(fault.EINVALID, "unknown view %s", quote(callbackID))
	}
	if len(privateMetadata) > 4*MaxPrivateMetadata {
		return Submission{}, fault.Errorf(fault.EINVALID, "the view's metadata is too long")
	}
	var m metadata
	if err := json.Unmarshal([]byte(privateMetadata), &m); err != nil {
		return Submission{}, fault.Errorf(fault.EINVALID, "the view's metadata is not valid")
	}
	if !validQuestionID(m.Q) {
		return Submission{}, fault.Errorf(fault.EINVALID, "the view's metadata names no question")
	}
	if !validRef(m.C) || !validRef(m.TS) {
		return Submission{}, fault.Errorf(fault.EINVALID, "the view's metadata names no message")
	}
	s := Submission{Kind: kind, QuestionID: m.Q, Channel: m.C, MessageTS: m.TS}
	if v, ok := values[block][InputActionID]; ok {
		s.Value = v.Value
		if kind == SubmitReassign {
			s.Value = v.SelectedUser
		}
		if kind == SubmitChoices {
			idx := make([]string, 0, len(v.SelectedOptions))
			for _, o := range v.SelectedOptions {
				if _, err := parseIndex(o.Value); err != nil {
					return Submission{}, err
				}
				idx = append(idx, o.Value)
			}
			s.Value = strings.Join(idx, ",")
		}
	}
	if !utf8.ValidString(s.Value) {
		return Submission{}, fault.Errorf(fault.EINVALID, "the %s is not valid text", block)
	}
	if n := utf8.RuneCountInString(s.Value); n > hitl.MaxAnswerLen {
		return Submission{}, fault.Errorf(fault.EINVALID, "the %s is longer than %d characters", block, hitl.MaxAnswerLen)
	}
	if kind == SubmitAnswer && strings.TrimSpace(s.Value) == "" {
		return Submission{}, fault.Errorf(fault.EINVALID, "the answer is empty")
	}
	if kind == SubmitReassign && s.Value == "" {
		return Submission{}, fault.Errorf(fault.EINVALID, "choose the person to hand the question to")
	}
	if kind == SubmitChoices && s.Value == "" {
		return Submission{}, fault.Errorf(fault.EINVALID, "choose at least one option")
	}
	if v, ok := values[BlockEditedContent][InputActionID]; ok && kind == SubmitEdit {
		s.Content = v.Value
		if !utf8.ValidString(s.Content) {
			return Submission{}, fault.Errorf(fault.EINVALID, "the new text is not valid text")
		}
	}
	if kind == SubmitEdit && strings.TrimSpace(s.Value) == "" {
		return Submission{}, fault.Errorf(fault.EINVALID, "the edited input is empty: deny instead")
	}
	return s, nil
}

// validRef accepts an empty or plausible channel id or message ts.
func validRef(s string) bool {
	if len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// ChosenIndexes reads a SubmitChoices submission's option indexes.
func (s Submission) ChosenIndexes() []int {
	var out []int
	for _, v := range strings.Split(s.Value, ",") {
		if i, err := parseIndex(v); err == nil {
			out = append(out, i)
		}
	}
	return out
}
