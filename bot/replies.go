package bot

import (
	"context"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// reactionTaken marks the thread reply the bot took as the answer.
const reactionTaken = "white_check_mark"

// onEventsAPI handles Events API events (after the ack).
func (b *Bot) onEventsAPI(ctx context.Context, ev slackevents.EventsAPIEvent) {
	switch e := ev.InnerEvent.Data.(type) {
	case *slackevents.MessageEvent:
		b.onMessage(ctx, e)
	case *slackevents.AppHomeOpenedEvent:
		if e.Tab == "" || e.Tab == "home" {
			b.homes.opened(ctx, e.User)
		}
	}
}

// onMessage takes a thread reply under a question's message as its answer:
// for text questions any reply, for choice questions a reply naming an
// option, for yes/no questions a yes or a no. Approvals and sensitive
// questions are answered only with their buttons and modals.
func (b *Bot) onMessage(ctx context.Context, e *slackevents.MessageEvent) {
	if b.identity.isSelf(e.User, e.BotID) || e.BotID != "" || e.User == "" {
		return // our own posts, and other bots
	}
	if e.ThreadTimeStamp == "" || e.ThreadTimeStamp == e.TimeStamp {
		return // not a reply
	}
	if e.SubType != "" && e.SubType != "thread_broadcast" && e.SubType != "file_share" {
		return // edits, deletions, joins: not answers
	}
	ref, err := b.messageAt(ctx, e.Channel, e.ThreadTimeStamp)
	if err != nil {
		return // a thread that is not one of our questions
	}
	q, err := b.questions.Question(ctx, ref.QuestionID)
	if err != nil || !q.Pending() {
		return // later replies are conversation, not answers
	}
	text := unescape(e.Text)
	switch {
	case q.Sensitive:
		b.tell(ctx, e.Channel, e.User, "🔒 This question is sensitive: answers in the thread are not taken. Use the *Answer* button; and consider rotating anything you pasted here.")
		return
	case q.ResponseType == hitl.ApprovalResponse:
		return
	case q.ResponseType != hitl.TextResponse:
		if _, err := q.ParseAnswer(text, ""); err != nil {
			return // discussion, not one of the options
		}
	}
	if !b.mayAnswer(ctx, q, e.User) {
		b.tell(ctx, e.Channel, e.User, errorText(hitl.Errorf(hitl.EFORBIDDEN, "You may not answer this question.")))
		return
	}
	_, err = b.questions.Answer(hitl.WithActor(ctx, actor(e.User)), q.ID, hitl.Response{Value: text})
	switch hitl.ErrorCode(err) {
	case "":
		if err := b.api.AddReactionContext(ctx, reactionTaken, slack.ItemRef{Channel: e.Channel, Timestamp: e.TimeStamp}); err != nil {
			b.log.Warn("marking the reply taken failed", "err", err)
		}
	case hitl.ECONFLICT: // someone was first: the message update says who
	default:
		b.tell(ctx, e.Channel, e.User, errorText(err))
	}
}

// unescape undoes the three HTML entities Slack puts in message text.
func unescape(s string) string {
	return strings.TrimSpace(strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s))
}
