package wire

import (
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/steer"
)

// AskResponse answers POST /api/jobs/{id}/questions (docs/protocol.md#questions:
// {questionId, timeoutAt}, plus the status, whether it was created, the
// default a non_blocking agent goes on with, and the whole question).
type AskResponse struct {
	QuestionID      string         `json:"questionId"`
	TimeoutAt       *time.Time     `json:"timeoutAt"`
	Status          hitl.Status    `json:"status"`
	Created         bool           `json:"created"`
	DefaultResponse *hitl.Response `json:"defaultResponse,omitempty"`
	Question        *hitl.Question `json:"question"`
}

// AnswerRequest is the body of POST /api/questions/{id}/answer.
type AnswerRequest struct {
	Response *hitl.Response `json:"response"`
}

// AnswerResponse answers POST /api/questions/{id}/answer.
type AnswerResponse struct {
	Success    bool           `json:"success"`
	RunResumed bool           `json:"jobResumed"`
	Question   *hitl.Question `json:"question"`
}

// CancelRequest is the optional body of POST /api/questions/{id}/cancel.
type CancelRequest struct {
	Reason string `json:"reason,omitempty"`
}

// SuccessResponse answers POST /api/questions/{id}/cancel.
type SuccessResponse struct {
	Success  bool           `json:"success"`
	Question *hitl.Question `json:"question"`
}

// QuestionResponse answers GET /api/questions/{id} and its receive.
type QuestionResponse struct {
	Question *hitl.Question `json:"question"`
}

// QuestionsResponse answers the list endpoints: a page, and the cursor of
// the next one when there is more.
type QuestionsResponse hitl.QuestionPage

// MaxListLimit bounds ?limit= on the list endpoints.
const MaxListLimit = hitl.MaxPageSize

// ReassignRequest is POST /api/questions/{id}/reassign's body.
type ReassignRequest struct {
	To []string `json:"to"`
}

// Health answers GET /healthz: the service is up, and whether people can
// answer in Slack.
type Health struct {
	OK    bool `json:"ok"`
	Slack bool `json:"slack"`
	// InteractionThreshold is the service's default threshold, if set.
	InteractionThreshold *int `json:"interactionThreshold,omitempty"`
}

// WhoamiResponse answers GET /api/whoami.
type WhoamiResponse struct {
	Principal string       `json:"principal"`
	Scopes    []auth.Scope `json:"scopes"`
	SlackUser string       `json:"slackUser,omitempty"`
}

// AuditPage is the answer of GET /api/audit.
type AuditPage struct {
	Records []*hitl.AuditRecord `json:"records"`
	// NextAfter continues the list (after=) when the page was full.
	NextAfter uint64 `json:"nextAfter,omitempty"`
}

// CheckpointRequest is the body of POST /api/runs/{id}/checkpoint: what a
// loop reports at an iteration boundary (its own interaction threshold
// too, when it sets one).
type CheckpointRequest struct {
	IssueID   string `json:"issueId,omitempty"`
	Mode      string `json:"mode,omitempty"`
	Iter      int    `json:"iter"`
	Max       int    `json:"max,omitempty"`
	Model     string `json:"model,omitempty"`
	Threshold *int   `json:"interactionThreshold,omitempty"`
}

// ControlResponse answers POST /api/topics/loop:control: the messages the
// request produced on that topic, in order (ACK, RESULT).
type ControlResponse struct {
	Messages []steer.ControlMessage `json:"messages"`
}

// RunsResponse answers GET /api/runs.
type RunsResponse hitl.RunPage

// ThresholdRequest is the body of POST /api/jobs/{id}.
type ThresholdRequest struct {
	InteractionThreshold *int `json:"interactionThreshold"`
}

// PolicyRequest is the body of PUT /api/policy.
type PolicyRequest struct {
	Rules []hitl.Rule `json:"rules"`
}

// WebhookDeliveries is the answer of GET /api/webhooks/deliveries.
type WebhookDeliveries struct {
	Deliveries []hitl.WebhookDelivery `json:"deliveries"`
	// NextBefore continues the list (before=) when the page was full.
	NextBefore uint64 `json:"nextBefore,omitempty"`
}

// ErrorResponse is every error body.
type ErrorResponse struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Status     string `json:"status,omitempty"` // for conflicts: answered, timeout or cancelled
	AnsweredBy string `json:"answeredBy,omitempty"`
	AnsweredAt string `json:"answeredAt,omitempty"`
}

// UserHeader names the person or agent behind a request to a server
// without tokens (loopback use): the actor becomes "local:"+value.
const UserHeader = "X-Hitl-User"
