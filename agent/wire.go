package agent

import (
	"time"

	"github.com/hitlbot/hitl"
)

// The JSON bodies of the API, shared by the server and the client so that
// the two cannot drift apart.

// askResponse answers POST /api/jobs/{id}/questions (docs/protocol.md#questions:
// {questionId, timeoutAt}, plus the status, whether it was created, the
// default a non_blocking agent goes on with, and the whole question).
type askResponse struct {
	QuestionID      string         `json:"questionId"`
	TimeoutAt       *time.Time     `json:"timeoutAt"`
	Status          hitl.Status    `json:"status"`
	Created         bool           `json:"created"`
	DefaultResponse *hitl.Response `json:"defaultResponse,omitempty"`
	Question        *hitl.Question `json:"question"`
}

// answerRequest is the body of POST /api/questions/{id}/answer.
type answerRequest struct {
	Response *hitl.Response `json:"response"`
}

// answerResponse answers POST /api/questions/{id}/answer.
type answerResponse struct {
	Success    bool           `json:"success"`
	RunResumed bool           `json:"jobResumed"`
	Question   *hitl.Question `json:"question"`
}

// cancelRequest is the optional body of POST /api/questions/{id}/cancel.
type cancelRequest struct {
	Reason string `json:"reason,omitempty"`
}

// successResponse answers POST /api/questions/{id}/cancel.
type successResponse struct {
	Success  bool           `json:"success"`
	Question *hitl.Question `json:"question"`
}

// questionResponse answers GET /api/questions/{id} and its receive.
type questionResponse struct {
	Question *hitl.Question `json:"question"`
}

// questionsResponse answers the list endpoints: a page, and the cursor of
// the next one when there is more.
type questionsResponse hitl.QuestionPage

// errorResponse is every error body.
type errorResponse struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Status     string `json:"status,omitempty"` // for conflicts: answered, timeout or cancelled
	AnsweredBy string `json:"answeredBy,omitempty"`
	AnsweredAt string `json:"answeredAt,omitempty"`
}

// Health answers GET /healthz: the service is up, and whether people can
// answer in Slack.
type Health struct {
	OK    bool `json:"ok"`
	Slack bool `json:"slack"`
	// InteractionThreshold is the service's default threshold, if set.
	InteractionThreshold *int `json:"interactionThreshold,omitempty"`
}
