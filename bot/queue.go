package bot

import (
	"context"
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
)

// queue returns up to limit questions waiting on user, newest first, and
// whether more wait. It reads one page per index that can hold them:
// pending questions assigned to the user, to each of their groups, and,
// when they may answer, unassigned ones; its cost grows with limit and
// the number of their groups, not with the number of questions.
func (b *Bot) queue(ctx context.Context, user string, limit int) (waiting []*hitl.Question, more bool, err error) {
	groups := b.groups.groupsOf(ctx, user)
	filters := []hitl.QuestionFilter{{Assignee: user}}
	for _, g := range groups {
		filters = append(filters, hitl.QuestionFilter{Assignee: g})
	}
	if b.cfg.Access.SlackPrincipal(user, groups).Has(hitl.ScopeAnswer) {
		filters = append(filters, hitl.QuestionFilter{Unassigned: true})
	}
	seen := map[string]bool{}
	for _, f := range filters {
		f.Reverse, f.Limit = true, limit+1
		page, err := b.svc.QuestionPage(ctx, f)
		if err != nil {
			return nil, false, err
		}
		more = more || len(page.Questions) > limit
		for _, q := range page.Questions {
			if seen[q.ID] || !b.cfg.Access.WaitsOn(q, user, groups) {
				continue
			}
			seen[q.ID] = true
			waiting = append(waiting, q)
		}
	}
	slices.SortFunc(waiting, func(x, y *hitl.Question) int {
		if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(y.ID, x.ID)
	})
	if len(waiting) > limit {
		waiting, more = waiting[:limit], true
	}
	return waiting, more, nil
}

// recent returns the last questions user answered, newest first.
func (b *Bot) recent(ctx context.Context, user string, limit int) ([]*hitl.Question, error) {
	page, err := b.svc.QuestionPage(ctx, hitl.QuestionFilter{RespondedBy: actor(user), Reverse: true, Limit: limit})
	return page.Questions, err
}
