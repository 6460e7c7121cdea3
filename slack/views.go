package slack

import (
	"context"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	goslack "github.com/slack-go/slack"
)

type viewHandler func(ctx context.Context, user string, s blocks.Submission) error

// registerViews registers a handler per modal callback id.
func (b *Bot) registerViews() {
	answer := func(resp func(q *hitl.Question, s blocks.Submission) hitl.Response) viewHandler {
		return func(ctx context.Context, user string, s blocks.Submission) error {
			ctx, q, err := b.pendingAs(ctx, s.QuestionID, user)
			if err != nil {
				return err
			}
			_, err = b.svc.Questions.Answer(ctx, q.ID, resp(q, s))
			return err
		}
	}
	b.views = map[string]viewHandler{
		blocks.CallbackAnswer: answer(func(_ *hitl.Question, s blocks.Submission) hitl.Response { return hitl.Response{Value: s.Value} }),
		blocks.CallbackDeny: answer(func(_ *hitl.Question, s blocks.Submission) hitl.Response {
			return hitl.Response{Value: hitl.Deny, Text: s.Value}
		}),
		blocks.CallbackApprove: answer(func(_ *hitl.Question, s blocks.Submission) hitl.Response {
			return hitl.Response{Value: hitl.Approve, Text: s.Value}
		}),
		blocks.CallbackEdit: answer(func(q *hitl.Question, s blocks.Submission) hitl.Response {
			if s.Content == "" {
				return hitl.Response{Value: hitl.Approve, Edited: s.Value}
			}
			return q.EditedApproval(s.Value, s.Content)
		}),
		blocks.CallbackReply: answer(func(_ *hitl.Question, s blocks.Submission) hitl.Response {
			return hitl.Response{Value: hitl.Reply, Text: s.Value}
		}),
		blocks.CallbackChoices:  answer(chosen),
		blocks.CallbackReassign: b.reassign,
	}
}

// inputBlock names the modal's input block, where Slack shows an error.
var inputBlock = map[string]string{
	blocks.CallbackAnswer:   blocks.BlockAnswer,
	blocks.CallbackDeny:     blocks.BlockReason,
	blocks.CallbackApprove:  blocks.BlockMessage,
	blocks.CallbackEdit:     blocks.BlockEdited,
	blocks.CallbackReply:    blocks.BlockReply,
	blocks.CallbackChoices:  blocks.BlockChoices,
	blocks.CallbackReassign: blocks.BlockReassign,
}

// chosen is a multi-select answer: the values of the chosen options.
func chosen(q *hitl.Question, s blocks.Submission) hitl.Response {
	vals := []string{}
	for _, i := range s.ChosenIndexes() {
		if i < len(q.Options) {
			vals = append(vals, q.Options[i].Value)
		}
	}
	return hitl.Response{Value: vals}
}

// onViewSubmission answers from a modal. It runs before the ack: an error
// goes back in the ack as response_action "errors", shown under the input,
// and the modal stays open; success closes it.
func (b *Bot) onViewSubmission(ctx context.Context, cb goslack.InteractionCallback) any {
	switch cb.View.CallbackID {
	case blocks.CallbackEscalate, blocks.CallbackRedirect:
		return b.onSteerSubmission(ctx, cb)
	case blocks.CallbackBatch:
		return b.onBatchSubmission(ctx, cb) // batch.go
	}
	h, ok := b.views[cb.View.CallbackID]
	if !ok {
		return nil
	}
	s, err := blocks.ParseSubmission(cb.View.CallbackID, cb.View.PrivateMetadata, cb.View.State.Values)
	if err == nil {
		err = h(ctx, cb.User.ID, s)
	}
	if err == nil {
		return nil
	}
	return goslack.NewErrorsViewSubmissionResponse(map[string]string{inputBlock[cb.View.CallbackID]: blocks.PlainText(errorText(err))})
}
