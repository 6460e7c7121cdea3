package hitl

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// Limits on what an agent may send. They keep records small and every field
// renderable; Slack's own limits are handled by truncation in package blocks.
const (
	MaxQuestionLen  = 20000
	MaxOptions      = 100
	MaxOptionLen    = 500
	MaxAssignees    = 20
	MaxKeyLen       = 200
	MaxMetadataSize = 16 << 10
)

// NewQuestion is what an agent sends to ask (the questions API's create request, with
// the file bridge's inputType and sensitive, and routing for Slack: docs/protocol.md#questions).
type NewQuestion struct {
	Question     string       `json:"question"`
	Type         QuestionType `json:"type,omitempty"`
	ResponseType ResponseType `json:"responseType,omitempty"`
	InputType    InputType    `json:"inputType,omitempty"`
	Sensitive    bool         `json:"sensitive,omitempty"`
	Options      []Option     `json:"options,omitempty"`
	// MultiSelect lets a choice be answered with several options (Claude
	// Code's AskUserQuestion multiSelect): the answer is a list of values.
	MultiSelect     bool             `json:"multiSelect,omitempty"`
	Context         *QuestionContext `json:"context,omitempty"`
	TimeoutMinutes  *float64         `json:"timeoutMinutes,omitempty"`
	DefaultResponse *Response        `json:"defaultResponse,omitempty"`
	Metadata        map[string]any   `json:"metadata,omitempty"`
	Assignees       []string         `json:"assignees,omitempty"`
	Channel         string           `json:"channel,omitempty"`
	IdempotencyKey  string           `json:"idempotencyKey,omitempty"`
	// CallbackURL gets the question's outcome as a signed webhook; only
	// to hosts CallbackPolicy allows.
	CallbackURL string `json:"callbackUrl,omitempty"`
}

// Build validates n, fills in defaults and returns the pending question it
// describes. id, asker and now come from the service.
func (n NewQuestion) Build(id, runID, asker string, now time.Time, t Timeouts) (*Question, error) {
	if err := steer.ValidateRunID(runID); err != nil {
		return nil, err
	}
	if strings.TrimSpace(n.Question) == "" {
		return nil, fault.Errorf(fault.EINVALID, "%s", errRequiredText)
	}
	if utf8.RuneCountInString(n.Question) > MaxQuestionLen {
		return nil, fault.Errorf(fault.EINVALID, "question is longer than %d characters", MaxQuestionLen)
	}
	q := &Question{
		ID: id, RunID: runID, Question: n.Question, Type: n.Type, ResponseType: n.ResponseType,
		InputType: n.InputType, Sensitive: n.Sensitive, Context: n.Context, Metadata: n.Metadata, MultiSelect: n.MultiSelect,
		Channel: strings.TrimSpace(n.Channel), Asker: asker, IdempotencyKey: n.IdempotencyKey,
		Status: StatusPending, CreatedAt: now, RequestHash: n.hash(), CallbackURL: n.CallbackURL,
	}
	if err := q.fillTypes(len(n.Options) > 0); err != nil {
		return nil, err
	}
	opts, err := buildOptions(q.ResponseType, n.Options)
	if err != nil {
		return nil, err
	}
	q.Options = opts
	if q.MultiSelect && q.ResponseType != ChoiceResponse {
		return nil, fault.Errorf(fault.EINVALID, "multiSelect is only for choice questions (with options)")
	}
	if err := validateRouting(n.Assignees, q.Channel); err != nil {
		return nil, err
	}
	q.Assignees = append([]string(nil), n.Assignees...)
	if len(n.IdempotencyKey) > MaxKeyLen {
		return nil, fault.Errorf(fault.EINVALID, "idempotencyKey is longer than %d characters", MaxKeyLen)
	}
	if err := validateContext(n.Context); err != nil {
		return nil, err
	}
	if n.Metadata != nil {
		b, err := json.Marshal(n.Metadata)
		if err != nil || len(b) > MaxMetadataSize {
			return nil, fault.Errorf(fault.EINVALID, "metadata must be a JSON object of at most %d bytes", MaxMetadataSize)
		}
	}
	if n.DefaultResponse != nil {
		if q.Sensitive {
			return nil, fault.Errorf(fault.EINVALID, "a sensitive question cannot have a defaultResponse")
		}
		r, err := q.ValidateResponse(*n.DefaultResponse)
		if err != nil {
			return nil, fault.Errorf(fault.EINVALID, "defaultResponse: %s", fault.Message(err))
		}
		q.DefaultResponse = &r
	}
	if q.Type == NonBlocking && q.DefaultResponse == nil {
		return nil, fault.Errorf(fault.EINVALID, "a non_blocking question needs a defaultResponse: the agent goes on with it at once")
	}
	var requested time.Duration
	if n.TimeoutMinutes != nil {
		m := *n.TimeoutMinutes
		if math.IsNaN(m) || m <= 0 || m > 1e6 {
			return nil, fault.Errorf(fault.EINVALID, "timeoutMinutes must be a positive number, got %s", strconv.FormatFloat(m, 'g', -1, 64))
		}
		requested = time.Duration(m * float64(time.Minute))
		if err := t.Check(requested); err != nil {
			return nil, err
		}
	}
	if d, ok := t.For(q.Type, requested); ok {
		at := now.Add(d)
		q.TimeoutAt = &at
	}
	return q, nil
}

// fillTypes derives the type, response type and input type from each other
// and rejects combinations that cannot be answered.
func (q *Question) fillTypes(hasOptions bool) error {
	switch q.Type {
	case "":
		if q.ResponseType == ApprovalResponse {
			q.Type = Approval
		} else {
			q.Type = Blocking
		}
	case Blocking, NonBlocking, Approval, ErrorRecovery:
	default:
		return fault.Errorf(fault.EINVALID, "type %q is invalid: use blocking, non_blocking, approval or error_recovery", q.Type)
	}
	switch q.InputType {
	case "", TextInput:
	case PasswordInput:
		q.Sensitive = true
	case ConfirmationInput:
		if q.ResponseType == "" && q.Type != Approval {
			q.ResponseType = BooleanResponse
		}
	default:
		return fault.Errorf(fault.EINVALID, "inputType %q is invalid: use text, password or confirmation", q.InputType)
	}
	if q.ResponseType == "" {
		switch {
		case q.Type == Approval:
			q.ResponseType = ApprovalResponse
		case hasOptions:
			q.ResponseType = ChoiceResponse
		default:
			q.ResponseType = TextResponse
		}
	}
	switch q.ResponseType {
	case TextResponse, ChoiceResponse, BooleanResponse, ApprovalResponse:
	default:
		return fault.Errorf(fault.EINVALID, "responseType %q is invalid: use text, choice, boolean or approval", q.ResponseType)
	}
	if q.Type == Approval && q.ResponseType != ApprovalResponse {
		return fault.Errorf(fault.EINVALID, "an approval question must have responseType approval, not %q", q.ResponseType)
	}
	if q.ResponseType == ApprovalResponse && q.Type != Approval {
		return fault.Errorf(fault.EINVALID, "responseType approval needs type approval, not %q", q.Type)
	}
	if q.InputType == PasswordInput && q.ResponseType != TextResponse {
		return fault.Errorf(fault.EINVALID, "inputType password needs responseType text")
	}
	if q.InputType == ConfirmationInput && q.ResponseType != BooleanResponse && q.ResponseType != ApprovalResponse {
		return fault.Errorf(fault.EINVALID, "inputType confirmation needs responseType boolean or approval")
	}
	if q.Sensitive && q.ResponseType != TextResponse {
		return fault.Errorf(fault.EINVALID, "only text questions can be sensitive")
	}
	if hasOptions && q.ResponseType != ChoiceResponse {
		return fault.Errorf(fault.EINVALID, "options are only for responseType choice")
	}
	return nil
}

func buildOptions(rt ResponseType, in []Option) ([]Option, error) {
	if rt != ChoiceResponse {
		return nil, nil
	}
	if len(in) == 0 {
		return nil, fault.Errorf(fault.EINVALID, "a choice question needs options")
	}
	if len(in) > MaxOptions {
		return nil, fault.Errorf(fault.EINVALID, "a choice question has at most %d options, got %d", MaxOptions, len(in))
	}
	out := make([]Option, len(in))
	seen := map[string]bool{}
	for i, o := range in {
		o.Label = strings.TrimSpace(o.Label)
		if o.Label == "" {
			o.Label = strings.TrimSpace(o.Value)
		}
		if o.Label == "" {
			return nil, fault.Errorf(fault.EINVALID, "option %d needs a label or a value", i+1)
		}
		if o.Value == "" {
			o.Value = o.Label
		}
		if o.ID == "" {
			o.ID = strconv.Itoa(i + 1)
		}
		for _, s := range []string{o.Label, o.Value, o.Description, o.ID} {
			if utf8.RuneCountInString(s) > MaxOptionLen {
				return nil, fault.Errorf(fault.EINVALID, "option %d has a field longer than %d characters", i+1, MaxOptionLen)
			}
		}
		value, label := "v:"+strings.ToLower(o.Value), "l:"+strings.ToLower(o.Label)
		if seen[value] {
			return nil, fault.Errorf(fault.EINVALID, "option value %q appears twice (values must differ, ignoring case)", o.Value)
		}
		if seen[label] {
			return nil, fault.Errorf(fault.EINVALID, "option label %q appears twice (labels must differ, ignoring case)", o.Label)
		}
		if seen["i:"+o.ID] {
			return nil, fault.Errorf(fault.EINVALID, "option id %q appears twice", o.ID)
		}
		seen[value], seen[label], seen["i:"+o.ID] = true, true, true
		out[i] = o
	}
	return out, nil
}

func validateRouting(assignees []string, channel string) error {
	if len(assignees) > MaxAssignees {
		return fault.Errorf(fault.EINVALID, "at most %d assignees, got %d", MaxAssignees, len(assignees))
	}
	for _, a := range assignees {
		if !auth.IsSlackID(a) {
			return fault.Errorf(fault.EINVALID, "assignee %q is not a Slack user or user-group id (like U024BE7LH or S0614TZR7)", a)
		}
	}
	if channel != "" && !auth.IsChannel(channel) {
		return fault.Errorf(fault.EINVALID, "channel %q is not a Slack channel id (like C024BE91L) or name", channel)
	}
	return nil
}

func validateContext(c *QuestionContext) error {
	if c == nil {
		return nil
	}
	for name, v := range map[string]string{
		"context.agent": c.Agent, "context.issueId": c.IssueID, "context.jobType": c.RunType,
		"context.projectName": c.ProjectName, "context.currentStep": c.CurrentStep, "context.errorDetails": c.ErrorDetails,
	} {
		if utf8.RuneCountInString(v) > MaxContextLen {
			return fault.Errorf(fault.EINVALID, "%s is longer than %d characters", name, MaxContextLen)
		}
	}
	if len(c.SuggestedOptions) > MaxOptions {
		return fault.Errorf(fault.EINVALID, "context.suggestedOptions has more than %d entries", MaxOptions)
	}
	return nil
}

// hash identifies what n asks (everything but its idempotency key), so
// that a retry with the same key can be told from another question.
func (n NewQuestion) hash() string {
	n.IdempotencyKey = ""
	b, _ := json.Marshal(n) // map keys are sorted: the encoding is stable
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

const errRequiredText = "question is required"
