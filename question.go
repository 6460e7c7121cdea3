package hitl

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// MaxContextLen bounds each context field an agent sends with a question.
const MaxContextLen = 4000

// QuestionType says how an agent waits for the answer (docs/protocol.md#questions).
type QuestionType string

const (
	Blocking      QuestionType = "blocking"       // the agent waits for the answer
	NonBlocking   QuestionType = "non_blocking"   // the agent goes on with the default
	Approval      QuestionType = "approval"       // the agent waits for approve/deny
	ErrorRecovery QuestionType = "error_recovery" // the agent is stuck and waits
)

// InputType is the file bridge's hint for how to collect a text answer (docs/protocol.md#questions).
type InputType string

const (
	TextInput         InputType = "text"
	PasswordInput     InputType = "password"
	ConfirmationInput InputType = "confirmation"
)

// Status is where a question is in its lifecycle. Only pending moves.
type Status string

const (
	StatusPending   Status = "pending"
	StatusAnswered  Status = "answered"
	StatusTimeout   Status = "timeout"
	StatusCancelled Status = "cancelled"
)

// Option is one choice of a choice question. Value is what the agent gets.
type Option struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	Value       string `json:"value"`
	Description string `json:"description,omitempty"`
}

// UnmarshalJSON accepts the questions API's `value: string | boolean` (docs/protocol.md#questions).
func (o *Option) UnmarshalJSON(b []byte) error {
	var raw struct {
		ID          json.RawMessage `json:"id"`
		Label       string          `json:"label"`
		Value       any             `json:"value"`
		Description string          `json:"description"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	o.Label, o.Description = raw.Label, raw.Description
	o.ID = scalarString(raw.ID)
	switch v := raw.Value.(type) {
	case nil:
		o.Value = ""
	case string:
		o.Value = v
	case bool:
		o.Value = strconv.FormatBool(v)
	case float64:
		o.Value = strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fault.Errorf(fault.EINVALID, "option value must be a string or a boolean")
	}
	return nil
}

func scalarString(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// QuestionContext is what a person needs to decide: the questions API's QuestionContext (docs/protocol.md#questions) plus
// the agent and issue the question comes from.
type QuestionContext struct {
	Agent            string   `json:"agent,omitempty"`
	IssueID          string   `json:"issueId,omitempty"`
	RunType          string   `json:"jobType,omitempty"`
	ProjectName      string   `json:"projectName,omitempty"`
	CurrentStep      string   `json:"currentStep,omitempty"`
	ErrorDetails     string   `json:"errorDetails,omitempty"`
	SuggestedOptions []string `json:"suggestedOptions,omitempty"`
}

// Question is a question an agent asked. Field names follow the questions API (docs/protocol.md#questions).
type Question struct {
	ID              string           `json:"id"`
	RunID           string           `json:"jobId"`
	Type            QuestionType     `json:"type"`
	Question        string           `json:"question"`
	ResponseType    ResponseType     `json:"responseType"`
	InputType       InputType        `json:"inputType,omitempty"`
	Sensitive       bool             `json:"sensitive,omitempty"`
	Options         []Option         `json:"options,omitempty"`
	MultiSelect     bool             `json:"multiSelect,omitempty"`
	Context         *QuestionContext `json:"context,omitempty"`
	Status          Status           `json:"status"`
	Response        *Response        `json:"response,omitempty"`
	RespondedBy     string           `json:"respondedBy,omitempty"`
	RespondedAt     *time.Time       `json:"respondedAt,omitempty"`
	TimeoutAt       *time.Time       `json:"timeoutAt"`
	DefaultResponse *Response        `json:"defaultResponse,omitempty"`
	Metadata        map[string]any   `json:"metadata,omitempty"`
	CreatedAt       time.Time        `json:"createdAt"`

	// Routing, used by the Slack bot.
	Assignees []string `json:"assignees,omitempty"`
	Channel   string   `json:"channel,omitempty"`

	// Asker is the principal that asked ("api:ci"). It may never answer
	// the question; only it receives the outcome.
	Asker string `json:"asker,omitempty"`
	// AskerUser is the Slack user the asking principal speaks for, if any:
	// that person may not answer either.
	AskerUser      string `json:"askerUser,omitempty"`
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// RequestHash identifies what was asked, so that a retry with the same
	// idempotency key but another question is refused.
	RequestHash string `json:"requestHash,omitempty"`
	// ReceivedAt is when the asker took the outcome (Receive). From then on
	// the idempotency key is free: the next ask with it is a new question.
	ReceivedAt *time.Time `json:"receivedAt,omitempty"`
	// Notice is shown to people with the question (why it waits again).
	Notice string `json:"notice,omitempty"`

	// An approval the policy asked for (docs/protocol.md#approvals): the operation, the rule
	// that asked, who may approve (Slack users, user groups, token names;
	// empty: whoever may answer) and how many distinct people must.
	Operation *Operation `json:"operation,omitempty"`
	Rule      string     `json:"rule,omitempty"`
	Approvers []string   `json:"approvers,omitempty"`
	Quorum    int        `json:"quorum,omitempty"`
	// Parts are how the policy decided a command line, part by part, for
	// the people deciding to see; Learnable says "approve and always
	// allow" may apply (the policy's Decision.Learnable when it asked).
	Parts     []DecisionPart `json:"parts,omitempty"`
	Learnable bool           `json:"learnable,omitempty"`
	// Risks are what the operation does that a person should weigh,
	// riskiest first (the policy's Decision.Risks when it asked).
	Risks []RiskLabel `json:"risks,omitempty"`
	// RunGrant is what the command line may do when it runs, shown with
	// the decision (the policy's Decision.Grant).
	RunGrant *CommandGrant `json:"grant,omitempty"`
	// Approvals are the approvals counted so far, while fewer than Quorum.
	Approvals []Grant `json:"approvals,omitempty"`
	// CancelReason says why a cancelled question was cancelled.
	CancelReason string `json:"cancelReason,omitempty"`
	// CallbackURL gets the question's outcome as a signed webhook
	// (WebhookRoutes); CallbackPolicy allowed it when it was asked.
	CallbackURL string `json:"callbackUrl,omitempty"`

	// Reminders is the reminder plan fixed when the question was asked
	// (reminder.go); EscalatedTo are the people escalation added as its
	// answerers; HandedBy is who last handed it to its assignees
	// (reassign.go).
	Reminders   *ReminderPlan `json:"reminders,omitempty"`
	EscalatedTo []string      `json:"escalatedTo,omitempty"`
	HandedBy    string        `json:"handedBy,omitempty"`
}

// Grant is one person's approval of a question that needs several.
type Grant struct {
	By string `json:"by"`
	// User is the Slack user who approved (a token's slack_user): the
	// person counted, whichever token or click it came through.
	User string    `json:"user,omitempty"`
	At   time.Time `json:"at"`
	Text string    `json:"text,omitempty"`
}

// NeedsSeveral reports whether q is settled by several people's approvals
// (a policy rule's quorum) rather than by one answer.
func (q *Question) NeedsSeveral() bool { return q.Quorum > 1 }

// QuorumMet reports whether the approvals counted so far settle q.
func (q *Question) QuorumMet() bool { return len(q.Approvals) >= max(q.Quorum, 1) }

// Tally says how far q's quorum is: "1 of 2 approvals".
func (q *Question) Tally() string {
	return strconv.Itoa(len(q.Approvals)) + " of " + strconv.Itoa(max(q.Quorum, 1)) + " approvals"
}

// ApprovedBy reports whether p's approval of q is already counted: the
// same person twice counts once, whichever token, Slack click or web
// session each approval came through (auth.Person: the rule).
func (q *Question) ApprovedBy(p auth.Principal) bool {
	for _, g := range q.Approvals {
		if auth.Person(g.By, g.User) == p.Person() {
			return true
		}
	}
	return false
}

// Editable reports whether a person may approve q with its operation's
// input edited: an operation with an editable input (a command, a path, a
// URL) that one person decides.
func (q *Question) Editable() bool {
	return q.Operation != nil && q.Operation.Editable() && !q.NeedsSeveral()
}

// Pending reports whether the question still waits for an answer.
func (q *Question) Pending() bool { return q.Status == StatusPending }

// Clone returns a deep copy, so callers can change it freely.
func (q *Question) Clone() *Question {
	if q == nil {
		return nil
	}
	c := *q
	c.Options = append([]Option(nil), q.Options...)
	c.Assignees = append([]string(nil), q.Assignees...)
	c.Approvers = append([]string(nil), q.Approvers...)
	c.Approvals = append([]Grant(nil), q.Approvals...)
	c.EscalatedTo = append([]string(nil), q.EscalatedTo...)
	c.Reminders = q.Reminders.Clone()
	if q.Operation != nil {
		op := *q.Operation
		op.Diffs = append([]FileDiff(nil), op.Diffs...)
		c.Operation = &op
	}
	if q.Context != nil {
		ctx := *q.Context
		ctx.SuggestedOptions = append([]string(nil), q.Context.SuggestedOptions...)
		c.Context = &ctx
	}
	c.Response = q.Response.Clone()
	c.DefaultResponse = q.DefaultResponse.Clone()
	if q.RespondedAt != nil {
		t := *q.RespondedAt
		c.RespondedAt = &t
	}
	if q.TimeoutAt != nil {
		t := *q.TimeoutAt
		c.TimeoutAt = &t
	}
	if q.ReceivedAt != nil {
		t := *q.ReceivedAt
		c.ReceivedAt = &t
	}
	if q.Metadata != nil {
		c.Metadata = make(map[string]any, len(q.Metadata))
		for k, v := range q.Metadata {
			c.Metadata[k] = v
		}
	}
	return &c
}

// Redacted returns a copy safe to show, log or stream: a sensitive answer's
// value is removed.
func (q *Question) Redacted() *Question {
	c := q.Clone()
	if c.Sensitive && c.Response != nil {
		c.Response = c.Response.Hidden()
	}
	return c
}

// OptionFor finds the option a person or agent meant by s: the one whose
// value, id or label (case-insensitive) is s. When s names different
// options by different fields ("1" is one option's id and another's label)
// it is ambiguous and nothing is found.
func (q *Question) OptionFor(s string) (Option, bool) {
	o, err := q.optionFor(s)
	return o, err == nil
}

func (q *Question) optionFor(s string) (Option, error) {
	found := -1
	for i, o := range q.Options {
		if o.Value != s && o.ID != s && !equalFold(o.Label, s) && !equalFold(o.Value, s) {
			continue
		}
		if found >= 0 && found != i {
			return Option{}, fault.Errorf(fault.EINVALID, "%q is ambiguous: it names more than one option (%s); answer with an option's value", s, q.optionList())
		}
		found = i
	}
	if found < 0 {
		return Option{}, fault.Errorf(fault.EINVALID, "%q is not one of the options: %s", s, q.optionList())
	}
	return q.Options[found], nil
}

// Outcome is what the asking agent learns when a question is settled.
type Outcome string

const (
	OutcomeAnswered  Outcome = "answered"
	OutcomeApproved  Outcome = "approved"
	OutcomeDenied    Outcome = "denied"
	OutcomeReplied   Outcome = "replied"   // an approval answered with text: not approved
	OutcomeTimedOut  Outcome = "timed_out" // timed out, no default
	OutcomeDefaulted Outcome = "defaulted" // timed out, default used
	OutcomeCancelled Outcome = "cancelled"
	OutcomePending   Outcome = "pending"
)

// Outcome classifies a settled question for the agent.
func (q *Question) Outcome() Outcome {
	switch q.Status {
	case StatusPending:
		return OutcomePending
	case StatusCancelled:
		return OutcomeCancelled
	case StatusTimeout:
		if q.Response == nil {
			return OutcomeTimedOut
		}
		return OutcomeDefaulted
	}
	if q.ResponseType == ApprovalResponse && q.Response != nil {
		switch {
		case q.Response.Approved():
			return OutcomeApproved
		case q.Response.Replied():
			return OutcomeReplied
		}
		return OutcomeDenied
	}
	return OutcomeAnswered
}

// CheckEdit accepts an edited input only on an approval of an editable
// operation, decided by one person; an edited content only on a file
// change whose content is editable.
func (q *Question) CheckEdit(r *Response) error {
	if r.Edited == "" && r.EditedContent == "" && !r.Always {
		return nil
	}
	edited := r.Edited != "" || r.EditedContent != ""
	switch {
	case q.Operation == nil:
		return fault.Errorf(fault.EINVALID, "only an approval of an operation can be edited or always allowed")
	case !r.Approved():
		r.Edited, r.EditedContent, r.Always = "", "", false // a denial edits nothing
	case edited && q.NeedsSeveral():
		return fault.Errorf(fault.EINVALID, "an operation that needs %d approvals cannot be edited: deny it and ask again", q.Quorum)
	case edited && q.Operation.NoEdit:
		return fault.Errorf(fault.EINVALID, "the agent cannot run this %s operation with other input: approve it as it is, or deny it", q.Operation.Type)
	case edited && !q.Editable():
		return fault.Errorf(fault.EINVALID, "the input of this %s operation cannot be edited", q.Operation.Type)
	case r.EditedContent != "" && !q.Operation.ContentEditable():
		return fault.Errorf(fault.EINVALID, "this %s operation has no content to edit: edit its input (%s) instead", q.Operation.Type, q.Operation.Resource)
	case r.Always && edited:
		return fault.Errorf(fault.EINVALID, "approve an edited operation without 'always': a learned rule allows only what was asked")
	case len(r.Edited) > MaxContextLen:
		return fault.Errorf(fault.EINVALID, "the edited input is longer than %d characters", MaxContextLen)
	case len(r.EditedContent) > MaxContentLen:
		return fault.Errorf(fault.EINVALID, "the edited content is longer than %d bytes", MaxContentLen)
	}
	return nil
}

// EditedApproval is an approval with the edits a person made in an edit
// form (the web card, Slack's modal), which show the input prefilled: a
// field left as it was is no edit (a file change's path, its new text).
// A textarea's CRLF line breaks (a form posted without script) are put
// back as the agent wrote them.
func (q *Question) EditedApproval(resource, content string) Response {
	r := Response{Value: Approve, Edited: resource}
	op := q.Operation
	if op == nil {
		return r
	}
	if op.Type == OpFileWrite && resource == op.Resource {
		r.Edited = ""
	}
	if !strings.Contains(op.Content, "\r\n") {
		content = strings.ReplaceAll(content, "\r\n", "\n")
	}
	if content != op.Content {
		r.EditedContent = content
	}
	return r
}

// QuestionTypes lists the question types, in the order docs show them.
var QuestionTypes = []QuestionType{Blocking, NonBlocking, Approval, ErrorRecovery}

// Conflict is the error for acting on a question that is no longer pending:
// it names who settled it and when.
func Conflict(q *Question) *fault.Error {
	at := ""
	if q.RespondedAt != nil {
		at = q.RespondedAt.UTC().Format(time.RFC3339)
	}
	e := &fault.Error{Code: fault.ECONFLICT, Status: string(q.Status), By: q.RespondedBy, At: at}
	switch q.Status {
	case StatusAnswered:
		e.Message = "question " + q.ID + " was already answered by " + auth.PersonName(q.RespondedBy) + " at " + at
	case StatusTimeout:
		e.Message = "question " + q.ID + " timed out at " + at
	case StatusCancelled:
		e.Message = "question " + q.ID + " was cancelled by " + auth.PersonName(q.RespondedBy) + " at " + at
	default:
		e.Message = "question " + q.ID + " is " + string(q.Status)
	}
	return e
}

func equalFold(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

func (q *Question) optionList() string {
	labels := make([]string, len(q.Options))
	for i, o := range q.Options {
		labels[i] = o.Label
	}
	return strings.Join(labels, ", ")
}

// Listed is whose lists a pending question appears in: its assignees and
// the people (or groups) escalation added, each once, assignees first.
// Every list of "what waits on me" reads it — the store indexes each id
// as an assignee list (QuestionFilter.Assignee, a Queue), so App Home,
// /hitl pending and the web inbox show an escalated question to the
// people it was escalated to, as they may answer it. A user group is
// listed by its id, as a group assignee is: its members find it through
// their groups.
//
// Escalation adds people; it takes the question from nobody: a question
// without assignees stays in the unassigned list (whoever answers may
// still answer it) and is in the escalated people's lists too.
func (q *Question) Listed() []string {
	if len(q.EscalatedTo) == 0 {
		return slices.Clone(q.Assignees)
	}
	out := slices.Clone(q.Assignees)
	for _, id := range q.EscalatedTo {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Unassigned reports whether a pending q is in the unassigned list:
// nobody was assigned to it. Escalation does not change that (see
// Listed): it adds people, and whoever answers may still answer it.
func (q *Question) Unassigned() bool { return len(q.Assignees) == 0 }
