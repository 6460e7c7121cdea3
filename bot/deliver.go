package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/slack-go/slack"
)

// do carries out one outbox task against Slack and, when it is done,
// removes it from the outbox (recording the posted message).
func (b *Bot) do(ctx context.Context, t hitl.SlackTask) error {
	q, err := b.questions.Question(ctx, t.QuestionID)
	if hitl.ErrorCode(err) == hitl.ENOTFOUND {
		return b.outbox.CompleteSlackTask(ctx, t, nil)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", errStoreWrite, err)
	}
	switch t.Kind {
	case hitl.SlackPost:
		return b.post(ctx, t, q)
	case hitl.SlackUpdate:
		return b.update(ctx, t, q)
	}
	return b.outbox.CompleteSlackTask(ctx, t, nil)
}

// post posts q to the task's target as it is now (a question settled
// before Slack came back is posted settled), then the full text in the
// thread when the message had to cut it.
func (b *Bot) post(ctx context.Context, t hitl.SlackTask, q *hitl.Question) error {
	channel := t.Target
	if isUser(t.Target) {
		ch, _, _, err := b.api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{t.Target}})
		if err != nil {
			return err
		}
		channel = ch.ID
	}
	msg := blocks.QuestionMessage(q, b.messageOptions())
	ch, ts, err := b.api.PostMessageContext(ctx, channel,
		slack.MsgOptionText(msg.Text, false), slack.MsgOptionBlocks(msg.Blocks...))
	if err != nil {
		return err
	}
	ref := &hitl.SlackMessage{QuestionID: q.ID, Target: t.Target, Channel: ch, TS: ts, PostedAt: b.cfg.Clock.Now()}
	if err := b.outbox.CompleteSlackTask(ctx, t, ref); err != nil {
		// Posted but not recorded: retrying would post twice, so log loudly.
		b.log.Error("slack message posted but not recorded", "question", q.ID, "channel", ch, "ts", ts, "err", err)
		return nil
	}
	b.posted.recorded()
	if msg.Truncated {
		for _, chunk := range blocks.FullTextChunks(q) {
			if _, _, err := b.api.PostMessageContext(ctx, ch, slack.MsgOptionText(chunk, false), slack.MsgOptionTS(ts)); err != nil {
				b.log.Warn("posting the full question text in the thread failed", "question", q.ID, "err", err)
				break
			}
		}
	}
	return nil
}

// update re-renders q's message at the task's target, in place.
func (b *Bot) update(ctx context.Context, t hitl.SlackTask, q *hitl.Question) error {
	refs, err := b.outbox.SlackMessages(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("%w: %v", errStoreWrite, err)
	}
	msg := blocks.QuestionMessage(q, b.messageOptions())
	for _, ref := range refs {
		if ref.Target != t.Target {
			continue
		}
		_, _, _, err := b.api.UpdateMessageContext(ctx, ref.Channel, ref.TS,
			slack.MsgOptionText(msg.Text, false), slack.MsgOptionBlocks(msg.Blocks...))
		if err != nil {
			return err
		}
	}
	return b.outbox.CompleteSlackTask(ctx, t, nil)
}

func (b *Bot) messageOptions() blocks.MessageOptions {
	return blocks.MessageOptions{Now: b.cfg.Clock.Now(), MentionAssignees: true}
}

// isUser reports whether a target is a user id (a DM) rather than a channel.
func isUser(target string) bool {
	return strings.HasPrefix(target, "U") || strings.HasPrefix(target, "W")
}
