package hitl

import (
	"strconv"
	"strings"
)

// Approval answer values, as stored.
const (
	Approve = "approve"
	Deny    = "deny"
	// Reply answers an approval with text for the agent instead of a
	// verdict ("use the staging database instead"): the text is in the
	// response's Text. It is not an approval for any rule: it settles
	// the approval as not approved, counts no vote towards a quorum and
	// never teaches a learned rule.
	Reply = "reply"
)

// MaxAnswerLen bounds a text answer (and an approval message or reason).
const MaxAnswerLen = 10000

// Response is an answer (the questions API's QuestionResponse: docs/protocol.md#questions). After validation Value
// is a string for text, choice (the option's value) and approval
// ("approve", "deny" or "reply"), and a bool for boolean. Text is an
// optional explanation: the message on grant, the reason on deny; with a
// reply it is required and is what the agent reads.
type Response struct {
	Type  ResponseType `json:"type"`
	Value any          `json:"value"`
	Text  string       `json:"text,omitempty"`
	// Redacted is set when Value was removed because the answer is
	// sensitive (never shown) or was scrubbed after delivery.
	Redacted bool `json:"redacted,omitempty"`
	// Edited is the operation's input as a person edited it before
	// approving (a command, a path, a URL): what the agent must use.
	Edited string `json:"edited,omitempty"`
	// EditedContent is the new text of a file change as a person edited
	// it before approving (Operation.Content). The agent's side
	// does not run it on this approval: it shows the edited change's diff
	// against the file and asks again.
	EditedContent string `json:"editedContent,omitempty"`
	// Always asks, with an approval, to allow the same request from now
	// on (a narrow learned rule).
	Always bool `json:"always,omitempty"`
	// Sealed holds a sensitive answer (value and text) encrypted with a key
	// that lives only in the service's memory; Value and Text are then
	// empty. It never leaves the service.
	Sealed *Sealed `json:"sealed,omitempty"`
}

func (r *Response) Clone() *Response {
	if r == nil {
		return nil
	}
	c := *r
	return &c
}

func (r *Response) Hidden() *Response {
	return &Response{Type: r.Type, Value: nil, Redacted: true}
}

// WasEdited reports whether a person changed the operation's input
// (its resource or its content) in this approval.
func (r *Response) WasEdited() bool {
	return r != nil && (r.Edited != "" || r.EditedContent != "") && r.Approved()
}

// Approved reports whether an approval response grants the request.
func (r *Response) Approved() bool {
	if r == nil {
		return false
	}
	s, _ := r.Value.(string)
	return s == Approve
}

// Replied reports whether an approval response is a reply to the agent
// (text instead of a verdict).
func (r *Response) Replied() bool {
	if r == nil {
		return false
	}
	s, _ := r.Value.(string)
	return s == Reply
}

// String renders the value as a person would type it.
func (r *Response) String() string {
	if r == nil {
		return ""
	}
	if r.Redacted {
		return "[redacted]"
	}
	switch v := r.Value.(type) {
	case string:
		return v
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case nil:
		return ""
	case []string:
		return strings.Join(v, ", ")
	case []any:
		parts := make([]string, 0, len(v))
		for _, x := range v {
			if s, ok := scalar(x); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return ""
	}
}

func scalar(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	}
	return "", false
}

// ResponseType is the shape of an answer (docs/protocol.md#questions).
type ResponseType string

const (
	TextResponse     ResponseType = "text"
	ChoiceResponse   ResponseType = "choice"
	BooleanResponse  ResponseType = "boolean"
	ApprovalResponse ResponseType = "approval"
)
