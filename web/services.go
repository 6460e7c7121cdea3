package web

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
)

// Services is what the web pages need of hitl, part by part: the rules
// that decide what a person sees, the event log the pages follow, the
// questions they show and answer, the runs they show and steer, the
// learned rules, sign-in sign-ins, and the bound on open streams.
// cmd/hitl fills it from service.Service's parts (cmd/hitl/adapters.go).
type Services struct {
	Access access.Access
	Log    interface {
		hitl.EventLog
		// LastSeq is the Seq of the newest event.
		LastSeq(ctx context.Context) (uint64, error)
	}
	Questions hitl.QuestionService
	Runs      hitl.RunService
	Policies  interface {
		LearnedRules(ctx context.Context, f hitl.LearnedRuleFilter) (hitl.LearnedRulePage, error)
		RevokeRule(ctx context.Context, id string) (*hitl.LearnedRule, error)
	}
	SignIns interface {
		SignIn(ctx context.Context, p auth.Principal, ttl time.Duration) (secret string, ws *hitl.SignIn, err error)
		RedeemSignInLink(ctx context.Context, secret string, ttl time.Duration) (string, *hitl.SignIn, error)
		SignedIn(ctx context.Context, secret string) (*hitl.SignIn, error)
		SignOut(ctx context.Context, secret string) error
	}
	Guard interface {
		OpenStream(ctx context.Context) (release func(), err error)
	}
}
