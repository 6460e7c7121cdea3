// The answers a question takes: a person's response checked against the
// question and normalised (ValidateResponse), and what they typed read as
// one (ParseAnswer).

package hitl

import (
	"strings"
	"unicode/utf8"

	"github.com/hitlbot/hitl/fault"
)

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
