package hitl

import (
	"context"

	"github.com/hitlbot/hitl/steer"
)

// QuestionService is the question lifecycle as the edges see it.
// service.Questions implements it over the store; client.Client implements
// it over HTTP. The acting principal travels in the context
// (auth.WithPrincipal), and every method applies Access's rules to it.
//
// Errors: EINVALID for bad input, ENOTFOUND for unknown ids, ECONFLICT when
// a question is no longer pending (the *Error names who settled it and
// when), EFORBIDDEN when the principal may not do this (the message names
// the rule), ERATELIMITED when it asks too fast, EUNAVAILABLE when the
// service cannot be reached.
type QuestionService interface {
	// Create asks a question for run runID and returns at once (the agent
	// SDK's Ask also waits). With an idempotency key the run already uses
	// for a question whose outcome was not received, it returns that
	// question and created false; a different question under the same key
	// is a conflict.
	Create(ctx context.Context, runID string, n NewQuestion) (q *Question, created bool, err error)
	// Question returns a question; a sensitive answer is redacted.
	Question(ctx context.Context, id string) (*Question, error)
	// Wait blocks until the question is settled or ctx is done, and returns
	// it (redacted). On ctx's end it returns the pending question and ctx.Err().
	Wait(ctx context.Context, id string) (*Question, error)
	// Answer records the first valid answer.
	Answer(ctx context.Context, id string, r Response) (*Question, error)
	// Cancel cancels a pending question.
	Cancel(ctx context.Context, id, reason string) (*Question, error)
	// QuestionPage returns a page of the questions matching f, redacted:
	// all of them for principals that answer, otherwise only their own.
	// Follow NextCursor for the next page.
	QuestionPage(ctx context.Context, f QuestionFilter) (QuestionPage, error)
	// Receive is how the asker takes a settled question's outcome: a
	// sensitive answer is handed over once and scrubbed, and the
	// idempotency key is freed. A pending question is returned as it is.
	Receive(ctx context.Context, id string) (*Question, error)
	ReassignService
}

// ReassignService hands questions to other people. service.Questions implements
// it over the store; client.Client over HTTP.
type ReassignService interface {
	// Reassign hands pending question id to to (Slack user and user-group
	// ids), who replace its assignees, as the principal in ctx. Errors:
	// EINVALID for bad ids, ENOTFOUND, ECONFLICT when it is settled,
	// EFORBIDDEN when the principal may not answer it or a person in to
	// may not (the message names the rule).
	Reassign(ctx context.Context, id string, to []string) (*Question, error)
}

// RunService is steering as the edges see it (docs/protocol.md#steering): the control topic,
// the agent's loop:current reports and checkpoints, run listing and the
// interaction threshold. service.Runs implements it; client.Client
// implements it over HTTP.
type RunService interface {
	// RunState is the view of a run in docs/protocol.md#run-state-and-the-interaction-threshold: status, pending question and
	// recent history.
	RunState(ctx context.Context, runID string) (*RunState, error)
	// RunRecord returns a run's record: counts, the question it waits on,
	// its control state. It costs one read, however many questions it holds.
	RunRecord(ctx context.Context, id string) (*Run, error)
	Control(ctx context.Context, req steer.ControlMessage) ([]steer.ControlMessage, error)
	Publish(ctx context.Context, e steer.StateEvent) (Checkpoint, error)
	Checkpoint(ctx context.Context, e steer.StateEvent) (Checkpoint, error)
	// Woken answers a checkpoint held while its run was paused, once the
	// run WaitRun returned woke it (Service.Woken).
	Woken(ctx context.Context, e steer.StateEvent, run *Run) (Checkpoint, error)
	// Hook records a coding-agent session's hook call (Service.Hook).
	Hook(ctx context.Context, h steer.SessionHook) (steer.HookStep, error)
	WaitRun(ctx context.Context, id string, after uint64) (*Run, error)
	SetThreshold(ctx context.Context, id string, n *int) (*Run, error)
	Runs(ctx context.Context, active bool, limit int, cursor string) (RunPage, error)
	RunsByPrefix(ctx context.Context, prefix string, limit int) ([]*Run, error)
}

// PolicyService is the approval policy (docs/protocol.md#approvals) as the edges see it.
// service.Policies implements it; client.Client implements it over HTTP.
type PolicyService interface {
	Policy(ctx context.Context) (Policy, error)
	SetPolicy(ctx context.Context, rules []Rule) (Policy, error)
	RequestOperation(ctx context.Context, req ApprovalRequest) (ApprovalOutcome, error)
	CheckOperation(ctx context.Context, req ApprovalRequest) (Decision, error)
	LearnedRules(ctx context.Context, f LearnedRuleFilter) (LearnedRulePage, error)
	RevokeRule(ctx context.Context, id string) (*LearnedRule, error)
}

// WebhookService is what operators do with webhooks (the API's
// /api/webhooks, hitl webhooks): admins only (ActionWebhooks).
type WebhookService interface {
	Webhooks(ctx context.Context) (WebhookOverview, error)
	WebhookDeliveries(ctx context.Context, f WebhookFilter) ([]WebhookDelivery, error)
	ReplayWebhook(ctx context.Context, seq uint64) (WebhookDelivery, error)
	PingWebhook(ctx context.Context, name string) (WebhookPingResult, error)
}

// AuditService is the audit trail as the API serves it (GET /api/audit,
// GET /api/audit/verify): admins only.
type AuditService interface {
	Records(ctx context.Context, f AuditFilter) ([]*AuditRecord, error)
	Verify(ctx context.Context) (AuditVerdict, error)
}

// FloodGuard is what an edge asks before it holds or serves a request
// that a flood could multiply. *Guard implements it. Refusals are
// decided before anything is stored and audited without one record per
// request.
type FloodGuard interface {
	// OpenStream takes one of the concurrent streams (an SSE stream, a
	// long poll, a checkpoint held while paused) of the principal in ctx,
	// and returns the func that gives it back. Past the bound it returns
	// ETOOMANYSTREAMS with a RetryAfter.
	OpenStream(ctx context.Context) (release func(), err error)
	// Throttle charges one request to the principal's limit l, or returns
	// ERATELIMITED with a RetryAfter.
	Throttle(ctx context.Context, l Limit) error
}
