package hitl

// ApprovalRequest is an operation to approve, with how long to wait and
// where to ask.
type ApprovalRequest struct {
	Operation
	RunID          string   `json:"runId,omitempty"`
	TimeoutMinutes *float64 `json:"timeoutMinutes,omitempty"`
	Channel        string   `json:"channel,omitempty"`
	IdempotencyKey string   `json:"idempotencyKey,omitempty"`
	CallbackURL    string   `json:"callbackUrl,omitempty"`
}

// ApprovalOutcome is what POST /api/approvals answers: the decision and,
// when a person must decide, the question to wait on.
type ApprovalOutcome struct {
	Decision
	QuestionID string    `json:"questionId,omitempty"`
	Question   *Question `json:"question,omitempty"`
}
