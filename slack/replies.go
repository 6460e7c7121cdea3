package slack

import (
	"context"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	goslack "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// reactionTaken marks the thread reply the bot took as the answer.
const reactionTaken = "white_check_mark"

// onEventsAPI handles an Events API event before its ack (bounded by the
// ack budget, so a thread reply taken as an answer is durable when Slack
// sees the ack) and returns what to do after the ack.
func (b *Bot) onEventsAPI(ctx context.Context, ev slackevents.EventsAPIEvent) (after func(context.Context)) {
	switch e := ev.InnerEvent.Data.(type) {
	case *slackevents.MessageEvent:
		return b.onMessage(ctx, e)
	case *slackevents.AppHomeOpenedEvent:
		if e.Tab == "" || e.Tab == "home" {
			return func(ctx context.Context) { b.homes.opened(ctx, e.User) }
		}
	}
	return nil
}

// onMessage takes a thread reply under a question's message as its answer:
// for text questions any reply, for choice questions a reply naming an
// option, for yes/no questions a yes or a no. Approvals and sensitive
// questions are answered only with their buttons and modals.
func (b *Bot) onMessage(ctx context.Context, e *slackevents.MessageEvent) (after func(context.Context)) {
	tell := func(text string) func(context.Context) {
		return func(ctx context.Context) { b.tell(ctx, e.Channel, e.User, text) }
	}
	if b.identity.isSelf(e.User, e.BotID) || e.BotID != "" || e.User == "" {
		return nil // our own posts, and other bots
	}
	if e.ThreadTimeStamp == "" || e.ThreadTimeStamp == e.TimeStamp {
		return nil // not a reply
	}
	if e.SubType != "" && e.SubType != "thread_broadcast" && e.SubType != "file_share" {
		return nil // edits, deletions, joins: not answers
	}
	ref, err := b.messageAt(ctx, e.Channel, e.ThreadTimeStamp)
	if err != nil {
		return nil // a thread that is not one of our questions
	}
	q, err := b.svc.Questions.Question(ctx, ref.QuestionID)
	if err != nil || !q.Pending() {
		return nil // later replies are conversation, not answers
	}
	text := unescape(e.Text)
	switch {
	case q.Sensitive:
		return tell("🔒 This question is sensitive: answers in the thread are not taken. Use the *Answer* button; and consider rotating anything you pasted here.")
	case q.ResponseType == hitl.ApprovalResponse:
		return nil
	case q.ResponseType != hitl.TextResponse:
		if _, err := q.ParseAnswer(text, ""); err != nil {
			return nil // discussion, not one of the options
		}
	}
	actx, _ := b.as(ctx, q, e.User)
	_, err = b.svc.Questions.Answer(actx, q.ID, hitl.Response{Value: text})
	switch fault.Code(err) {
	case "":
		return func(ctx context.Context) {
			if err := b.api.AddReactionContext(ctx, reactionTaken, goslack.ItemRef{Channel: e.Channel, Timestamp: e.TimeStamp}); err != nil {
				b.log.Warn("marking the reply taken failed", "err", err)
			}
		}
	case fault.ECONFLICT: // someone was first: the message update says who
		return nil
	default:
		return tell(errorText(err))
	}
}

// unescape undoes the three HTML entities Slack puts in message text.
func unescape(s string) string {
	return strings.TrimSpace(strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s))
}
