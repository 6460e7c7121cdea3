package slack

import (
	"context"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/fault"
	goslack "github.com/slack-go/slack"
)

// click is one block action, parsed, with where it happened.
type click struct {
	user      string
	channel   string // "" in App Home
	messageTS string
	triggerID string
	actionID  string
	action    blocks.Action
	// viewID and viewHash name the modal a click came from (batch.go's
	// page buttons); empty for a message or App Home.
	viewID, viewHash string
}

type actionHandler func(ctx context.Context, c click, q *hitl.Question) error

// registerActions registers a handler per action id.
func (b *Bot) registerActions() {
	b.actions = map[string]actionHandler{
		blocks.ActionApprove: b.answerWith(func(*hitl.Question, click) hitl.Response { return hitl.Response{Value: hitl.Approve} }),
		blocks.ActionApproveAlways: b.answerWith(func(*hitl.Question, click) hitl.Response {
			return hitl.Response{Value: hitl.Approve, Always: true}
		}),
		blocks.ActionEdit:       b.openModal(auth.ActionAnswer, blocks.EditModal),
		blocks.ActionYes:        b.answerWith(func(*hitl.Question, click) hitl.Response { return hitl.Response{Value: true} }),
		blocks.ActionNo:         b.answerWith(func(*hitl.Question, click) hitl.Response { return hitl.Response{Value: false} }),
		blocks.ActionSelect:     b.answerWith(optionResponse),
		blocks.ActionDeny:       b.openModal(auth.ActionAnswer, blocks.DenyModal),
		blocks.ActionApproveMsg: b.openModal(auth.ActionAnswer, blocks.ApproveModal),
		blocks.ActionAnswer:     b.openModal(auth.ActionAnswer, blocks.AnswerModal),
		blocks.ActionReply:      b.openModal(auth.ActionAnswer, blocks.ReplyModal),
		blocks.ActionReassign:   b.openModal(auth.ActionReassign, blocks.ReassignModal), // reminder.go
	}
	for i := range blocks.MaxButtonChoices {
		b.actions[blocks.ChooseActionID(i)] = b.answerWith(optionResponse)
	}
}

func optionResponse(q *hitl.Question, c click) hitl.Response {
	i := c.action.OptionIndex
	if i < 0 || i >= len(q.Options) {
		return hitl.Response{Value: nil} // refused by validation
	}
	return hitl.Response{Value: q.Options[i].Value}
}

// note is an ephemeral message to send after the ack.
type note struct{ channel, user, text string }

// onBlockActions runs the handler of each action of a block_actions payload
// before the ack (bounded by the ack budget), so an answer Slack sees acked
// is already durable. What to tell the user is returned, to send after.
func (b *Bot) onBlockActions(ctx context.Context, cb goslack.InteractionCallback) []note {
	var notes []note
	for _, a := range cb.ActionCallback.BlockActions {
		c := click{user: cb.User.ID, channel: cb.Container.ChannelID, messageTS: cb.Container.MessageTs, triggerID: cb.TriggerID, actionID: a.ActionID}
		if c.channel == "" {
			c.channel = cb.Channel.ID
		}
		if cb.Container.Type == "view" {
			c.viewID, c.viewHash = cb.View.ID, cb.View.Hash
		}
		value := a.Value
		if a.SelectedOption.Value != "" {
			value = a.SelectedOption.Value
		}
		if h, ok := b.controls[a.ActionID]; ok {
			if err := h(ctx, c, a.BlockID, value); err != nil {
				notes = append(notes, note{c.channel, c.user, errorText(err)})
			}
			continue
		}
		h, ok := b.actions[a.ActionID]
		if !ok {
			continue // not ours (or a link button): nothing to do
		}
		var err error
		if c.action, err = blocks.ParseAction(a.ActionID, a.BlockID, value); err == nil {
			err = b.authorized(ctx, c, h)
		}
		if err != nil {
			notes = append(notes, note{c.channel, c.user, errorText(err)})
		}
	}
	return notes
}

// authorized loads the question, refuses late clicks, then runs h as the
// Slack user who clicked. Whether they may answer is the service's to
// decide (and audit) when the answer is given.
func (b *Bot) authorized(ctx context.Context, c click, h actionHandler) error {
	ctx, q, err := b.pendingAs(ctx, c.action.QuestionID, c.user)
	if err != nil {
		return err
	}
	return h(ctx, c, q)
}

// pendingAs loads question id and returns ctx acting as Slack user user
// on it; a settled question is a late click or submission (ECONFLICT:
// who settled it and when).
func (b *Bot) pendingAs(ctx context.Context, id, user string) (context.Context, *hitl.Question, error) {
	q, err := b.svc.Questions.Question(ctx, id)
	if err != nil {
		return ctx, nil, err
	}
	if !q.Pending() {
		return ctx, nil, hitl.Conflict(q)
	}
	ctx, _ = b.as(ctx, q, user)
	return ctx, q, nil
}

// answerWith answers the question with the response the click means.
func (b *Bot) answerWith(resp func(*hitl.Question, click) hitl.Response) actionHandler {
	return func(ctx context.Context, c click, q *hitl.Question) error {
		r := resp(q, c)
		if err := alreadyApproved(ctx, q, r); err != nil {
			return err
		}
		_, err := b.svc.Questions.Answer(ctx, q.ID, r)
		return err
	}
}

// openModal opens a modal for the question, with the message to update in
// its private metadata. trigger_id lives 3 s, so this runs right after ack.
// act is what submitting the modal does.
func (b *Bot) openModal(act auth.Action, render func(q *hitl.Question, channel, ts string) goslack.ModalViewRequest) actionHandler {
	return func(ctx context.Context, c click, q *hitl.Question) error {
		// Someone who may not do act gets the reason now, not a form that
		// would refuse them. (The service checks and audits again on submit.)
		if err := b.cfg.Access.Authorize(auth.PrincipalFrom(ctx), act, q); err != nil {
			return err
		}
		_, err := b.api.OpenViewContext(ctx, c.triggerID, render(q, c.channel, c.messageTS))
		if err != nil {
			b.log.Warn("opening a modal failed", "question", q.ID, "err", err)
			return fault.Errorf(fault.EUNAVAILABLE, "Slack did not open the form (%v); please click again", err)
		}
		return nil
	}
}

// alreadyApproved tells someone who approves a question that needs
// several approvals again that theirs is already counted.
func alreadyApproved(ctx context.Context, q *hitl.Question, r hitl.Response) error {
	if !q.NeedsSeveral() || !r.Approved() {
		return nil
	}
	if q.ApprovedBy(auth.PrincipalFrom(ctx)) { // the root's rule, worded for Slack
		return shown(fmt.Sprintf("👍 Your approval is already counted (%s): another approver must approve too.", q.Tally()))
	}
	return nil
}
