package bot

import (
	"context"

	"github.com/hitlbot/hitl"
)

// Service is what the bot needs of hitl's lifecycle: the event log it
// turns into Slack messages, the questions it renders, the answers people
// give, and the pages of a person's queue. *hitl.Service is it.
//
// Errors are *hitl.Error with codes (ENOTFOUND, ECONFLICT, EFORBIDDEN, …);
// the bot turns them into words for Slack users in one place (errorText).
type Service interface {
	hitl.EventLog
	// Question returns a question as the principal in ctx may see it.
	Question(ctx context.Context, id string) (*hitl.Question, error)
	// Answer records the first valid answer, as the principal in ctx.
	Answer(ctx context.Context, id string, r hitl.Response) (*hitl.Question, error)
	// QuestionPage returns one page of f, read from an index.
	QuestionPage(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error)
}

var _ Service = (*hitl.Service)(nil)
