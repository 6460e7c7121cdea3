package slack

import (
	"context"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
)

// Service is what the bot needs of hitl, part by part: the event log it
// turns into Slack messages, the questions it renders and answers, the
// runs it steers and lists, the learned rules it shows and revokes, and
// the alerts it posts. cmd/hitl fills it from service.Service's parts.
//
// Errors are *fault.Error with codes (ENOTFOUND, ECONFLICT, EFORBIDDEN, …);
// the bot turns them into words for Slack users in one place (errorText).
type Service struct {
	Log       hitl.EventLog
	Questions interface {
		// Question returns a question as the principal in ctx may see it.
		Question(ctx context.Context, id string) (*hitl.Question, error)
		// Answer records the first valid answer, as the principal in ctx.
		Answer(ctx context.Context, id string, r hitl.Response) (*hitl.Question, error)
		// QuestionPage returns one page of f, read from an index.
		QuestionPage(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error)
		// Reassign hands a question to other people, as the principal in ctx.
		Reassign(ctx context.Context, id string, to []string) (*hitl.Question, error)
	}
	Runs interface {
		// RunRecord returns a run's record (ENOTFOUND when there is none).
		RunRecord(ctx context.Context, id string) (*hitl.Run, error)
		// Control carries out a steering request as the principal in ctx
		// and returns its ACK and RESULT; a refused or failed command is a
		// RESULT with a failure code, not an error.
		Control(ctx context.Context, req steer.ControlMessage) ([]steer.ControlMessage, error)
		// Runs returns a page of runs in id order (active ones only, or all).
		Runs(ctx context.Context, active bool, limit int, cursor string) (hitl.RunPage, error)
		// RunsByPrefix returns runs whose id starts with prefix (runhandle.Match).
		RunsByPrefix(ctx context.Context, prefix string, limit int) ([]*hitl.Run, error)
	}
	Policies interface {
		// Policy returns the effective approval policy, learned rules included.
		Policy(ctx context.Context) (hitl.Policy, error)
		// LearnedRules lists learned rules, as the principal in ctx may see
		// them (answerers and admins: all).
		LearnedRules(ctx context.Context, f hitl.LearnedRuleFilter) (hitl.LearnedRulePage, error)
		// RevokeRule removes a learned rule, as the principal in ctx.
		RevokeRule(ctx context.Context, id string) (*hitl.LearnedRule, error)
	}
	Alerts interface {
		// AlertChanged reports whether an alert event changed the alerts (a
		// repeat a second replica logged at the same time did not).
		AlertChanged(ctx context.Context, ev *hitl.Event) (bool, error)
	}
}
