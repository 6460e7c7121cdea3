package hitl

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hitlbot/hitl/fault"
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

// ValidateResponse checks r against q and returns it normalized: the type is
// filled in, a choice is mapped to its option's value, a boolean written as
// "yes" becomes true, an approval becomes "approve" or "deny".
func (q *Question) ValidateResponse(r Response) (Response, error) {
	if r.Type == "" {
		r.Type = q.ResponseType
	}
	r.Sealed = nil
	if r.Type != q.ResponseType {
		return r, fault.Errorf(fault.EINVALID, "response type %q does not match the question's response type %q", r.Type, q.ResponseType)
	}
	r.Redacted = false
	if utf8.RuneCountInString(r.Text) > MaxAnswerLen {
		return r, fault.Errorf(fault.EINVALID, "response text is longer than %d characters", MaxAnswerLen)
	}
	switch q.ResponseType {
	case TextResponse:
		s, ok := r.Value.(string)
		if !ok {
			return r, fault.Errorf(fault.EINVALID, "a text answer must be a string")
		}
		if strings.TrimSpace(s) == "" {
			return r, fault.Errorf(fault.EINVALID, "the answer is empty")
		}
		if utf8.RuneCountInString(s) > MaxAnswerLen {
			return r, fault.Errorf(fault.EINVALID, "the answer is longer than %d characters", MaxAnswerLen)
		}
	case ChoiceResponse:
		if q.MultiSelect {
			vals, err := q.multiChoice(r.Value)
			if err != nil {
				return r, err
			}
			r.Value = vals
			break
		}
		s, ok := scalar(r.Value)
		if !ok {
			return r, fault.Errorf(fault.EINVALID, "a choice answer must be one of the options")
		}
		o, err := q.optionFor(strings.TrimSpace(s))
		if err != nil {
			return r, err
		}
		r.Value = o.Value
	case BooleanResponse:
		b, ok := parseBool(r.Value)
		if !ok {
			return r, fault.Errorf(fault.EINVALID, "a boolean answer must be true or false (yes or no)")
		}
		r.Value = b
	case ApprovalResponse:
		v, ok := parseApproval(r.Value)
		if !ok {
			return r, fault.Errorf(fault.EINVALID, "an approval answer must be approve, deny or reply")
		}
		if v == Reply && strings.TrimSpace(r.Text) == "" {
			return r, fault.Errorf(fault.EINVALID, "a reply to the agent needs text: what it should do instead")
		}
		r.Value = v
	default:
		return r, fault.Errorf(fault.EINVALID, "unknown response type %q", q.ResponseType)
	}
	return r, nil
}

// ParseAnswer turns what a person typed (in a terminal, a thread reply, a
// CLI argument) into a response for q. The same words work everywhere:
// yes/no/y/n/true/false for booleans, approve/deny (and yes/no) for
// approvals, an option's label, value or id for choices.
func (q *Question) ParseAnswer(typed, text string) (Response, error) {
	typed = strings.TrimSpace(typed)
	return q.ValidateResponse(Response{Type: q.ResponseType, Value: typed, Text: text})
}

func (q *Question) optionList() string {
	labels := make([]string, len(q.Options))
	for i, o := range q.Options {
		labels[i] = o.Label
	}
	return strings.Join(labels, ", ")
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

func parseBool(v any) (bool, bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes", "y", "1", "ok", "confirm":
			return true, true
		case "false", "no", "n", "0":
			return false, true
		}
	}
	return false, false
}

func parseApproval(v any) (string, bool) {
	switch v := v.(type) {
	case bool:
		if v {
			return Approve, true
		}
		return Deny, true
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "approve", "approved", "yes", "y", "true", "grant", "ok", "lgtm":
			return Approve, true
		case "deny", "denied", "no", "n", "false", "reject", "rejected":
			return Deny, true
		case "reply", "replied", "respond":
			return Reply, true
		}
	}
	return "", false
}

func equalFold(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// multiChoice reads a multi-select answer: a list of options (JSON array)
// or a comma-separated string, each an option's value, id or label. It
// returns the options' values, in the question's order, once each.
func (q *Question) multiChoice(v any) ([]string, error) {
	var picks []string
	switch v := v.(type) {
	case string:
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				picks = append(picks, p)
			}
		}
	case []string:
		picks = v
	case []any:
		for _, x := range v {
			s, ok := scalar(x)
			if !ok {
				return nil, fault.Errorf(fault.EINVALID, "a multi-select answer is a list of options")
			}
			picks = append(picks, s)
		}
	default:
		if s, ok := scalar(v); ok {
			picks = []string{s}
		}
	}
	if len(picks) == 0 {
		return nil, fault.Errorf(fault.EINVALID, "pick at least one of the options: %s", q.optionList())
	}
	chosen := map[string]bool{}
	for _, p := range picks {
		o, err := q.optionFor(strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		chosen[o.Value] = true
	}
	out := make([]string, 0, len(chosen))
	for _, o := range q.Options {
		if chosen[o.Value] {
			out = append(out, o.Value)
		}
	}
	return out, nil
}
