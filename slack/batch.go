package slack

import (
	"context"
	"slices"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/fault"
	goslack "github.com/slack-go/slack"
)

// Batch approval from Slack: "Review N approvals…" (a run's live message,
// App Home) opens a modal listing the pending approvals of the run, or of
// the person; on submit each selected approval is answered as the person
// would answer it alone — the same principal, the same Questions.Answer, one
// by one — and the modal is updated with what became of each and the
// next page.

// reviewClick opens the batch modal for a Review button.
func (b *Bot) reviewClick(ctx context.Context, c click, blockID, value string) error {
	scope, err := blocks.ParseReview(blockID, value)
	if err != nil {
		return err
	}
	if p := b.slackPrincipal(ctx, c.user); !p.Has(auth.ScopeAnswer) {
		return shown("🚫 You're not allowed to answer approvals here.")
	}
	v, err := b.batchView(ctx, c.user, scope, nil)
	if err != nil {
		return err
	}
	if _, err := b.api.OpenViewContext(ctx, c.triggerID, blocks.BatchModal(v)); err != nil {
		b.log.Warn("opening the batch modal failed", "run", scope.Run, "err", err)
		return fault.Errorf(fault.EUNAVAILABLE, "Slack did not open the form (%v); please click again", err)
	}
	return nil
}

// batchPageClick shows another page in the open batch modal.
func (b *Bot) batchPageClick(ctx context.Context, c click, _, value string) error {
	scope, err := blocks.ParseBatchPage(value)
	if err != nil {
		return err
	}
	v, err := b.batchView(ctx, c.user, scope, nil)
	if err != nil {
		return err
	}
	if _, err := b.api.UpdateViewContext(ctx, blocks.BatchModal(v), "", c.viewHash, c.viewID); err != nil {
		b.log.Warn("updating the batch modal failed", "view", c.viewID, "err", err)
		return fault.Errorf(fault.EUNAVAILABLE, "Slack did not show the page (%v); please click again", err)
	}
	return nil
}

// batchView reads the scope's pending approvals (oldest first) and takes
// the page at scope.Offset, moved past those of passed that still wait;
// results are the last submission's. An offset past the end shows the
// last page.
func (b *Bot) batchView(ctx context.Context, user string, scope blocks.BatchScope, results []hitl.BatchResult, passed ...string) (blocks.BatchView, error) {
	var all []*hitl.Question
	if scope.Run != "" {
		page, err := b.svc.Questions.QuestionPage(ctx, hitl.QuestionFilter{RunID: scope.Run, Status: hitl.StatusPending, Limit: hitl.MaxBatch})
		if err != nil {
			return blocks.BatchView{}, err
		}
		all = page.Questions
	} else {
		waiting, _, err := b.queue(ctx, user, hitl.MaxBatch)
		if err != nil {
			return blocks.BatchView{}, err
		}
		slices.Reverse(waiting) // the queue is newest first
		all = waiting
	}
	all = slices.DeleteFunc(all, func(q *hitl.Question) bool {
		return !q.Pending() || q.ResponseType != hitl.ApprovalResponse
	})
	for _, q := range all {
		if slices.Contains(passed, q.ID) {
			scope.Offset++
		}
	}
	if scope.Offset >= len(all) {
		scope.Offset = max(0, len(all)-blocks.BatchPageSize)
	}
	items := all[scope.Offset:min(len(all), scope.Offset+blocks.BatchPageSize)]
	return blocks.BatchView{Scope: scope, Items: items, Total: len(all), Results: results}, nil
}

// onBatchSubmission answers the selected approvals one by one, as user,
// and updates the modal with the results and the next page. A submission
// that cannot be read or selects nothing keeps the modal as it is, with
// the reason under the decision.
func (b *Bot) onBatchSubmission(ctx context.Context, cb goslack.InteractionCallback) any {
	refuse := func(err error) any {
		return goslack.NewErrorsViewSubmissionResponse(map[string]string{blocks.BlockBatchDecision: blocks.PlainText(errorText(err))})
	}
	s, err := blocks.ParseBatchSubmission(cb.View.PrivateMetadata, cb.View.State.Values)
	if err != nil {
		return refuse(err)
	}
	ids, err := hitl.BatchIDs(s.Selected)
	if err != nil {
		return refuse(err)
	}
	resp, err := hitl.BatchResponse(s.Decision, s.Reason)
	if err != nil {
		return refuse(err)
	}
	results := make([]hitl.BatchResult, 0, len(ids))
	for _, id := range ids {
		q, err := b.answerAs(ctx, id, cb.User.ID, resp)
		results = append(results, hitl.BatchResult{QuestionID: id, Question: q, Err: err})
	}
	// The next page starts after the approvals this page listed that
	// still wait (passed over, refused, or counted and waiting for
	// another approver).
	v, err := b.batchView(ctx, cb.User.ID, s.Scope, results, s.Listed...)
	if err != nil {
		return refuse(err)
	}
	view := blocks.BatchModal(v)
	return goslack.NewUpdateViewSubmissionResponse(&view)
}

// answerAs answers approval id with r as Slack user user would by
// clicking on its message: the same principal (with the groups the
// question is listed for) and the same Questions.Answer; a settled one is
// the conflict naming who settled it.
func (b *Bot) answerAs(ctx context.Context, id, user string, r hitl.Response) (*hitl.Question, error) {
	ctx, q, err := b.pendingAs(ctx, id, user)
	if err != nil {
		return nil, err
	}
	return b.svc.Questions.Answer(ctx, q.ID, r) // the root's refusals, worded once, go in the report
}
