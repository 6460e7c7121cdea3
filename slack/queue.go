package slack

import (
	"context"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
)

// queue returns up to limit questions waiting on user, newest first, and
// whether more wait. It reads one page per index that can hold them:
// pending questions assigned to the user, to each of their groups, and,
// when they may answer, unassigned ones; its cost grows with limit and
// the number of their groups, not with the number of questions.
func (b *Bot) queue(ctx context.Context, user string, limit int) (waiting []*hitl.Question, more bool, err error) {
	groups := b.groups.groupsOf(ctx, user)
	f := hitl.QuestionFilter{Queue: append([]string{user}, groups...), NotAskedBy: user, Reverse: true, Limit: limit,
		Unassigned: b.cfg.Access.SlackPrincipal(user, groups).Has(auth.ScopeAnswer)}
	// One read: the store merges the person's indexes on their keys and
	// decodes only this page.
	page, err := b.svc.Questions.QuestionPage(ctx, f)
	if err != nil {
		return nil, false, err
	}
	for _, q := range page.Questions {
		if b.cfg.Access.WaitsOn(q, user, groups) {
			waiting = append(waiting, q)
		}
	}
	return waiting, page.More, nil
}

// recent returns the last questions user answered, newest first.
func (b *Bot) recent(ctx context.Context, user string, limit int) ([]*hitl.Question, error) {
	page, err := b.svc.Questions.QuestionPage(ctx, hitl.QuestionFilter{RespondedBy: actor(user), Reverse: true, Limit: limit})
	return page.Questions, err
}
