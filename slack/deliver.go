package slack

import (
	"context"
	"errors"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/runhandle"
	goslack "github.com/slack-go/slack"
)

var (
	errStoreWrite = errors.New("reading or recording in the store failed")
	errStopping   = errors.New("the bot is stopping")
)

// do carries out one delivery against Slack and, when it is done, removes
// it from the outbox (recording the posted message).
func (b *Bot) do(ctx context.Context, d hitl.Delivery) error {
	b.noteResumed(d)
	switch d.Kind {
	case kindRun:
		return b.doRun(ctx, d)
	case kindAlert:
		return b.doAlert(ctx, d)
	}
	q, err := b.svc.Questions.Question(ctx, d.QuestionID)
	if fault.Code(err) == fault.ENOTFOUND {
		return b.record(ctx, d, nil) // pruned since
	}
	if err != nil {
		return fmt.Errorf("%w: %v", errStoreWrite, err)
	}
	b.groups.note(q)
	switch d.Kind {
	case kindPost:
		return b.post(ctx, d, q)
	case kindUpdate:
		return b.update(ctx, d, q)
	case kindRemind, kindEscalate, kindHanded:
		return b.nudge(ctx, d, q)
	}
	return b.record(ctx, d, nil)
}

// post posts q to the delivery's target as it is now (a question settled
// before Slack came back is posted settled), records the message, then
// posts the full text in the thread when the message had to cut it.
func (b *Bot) post(ctx context.Context, d hitl.Delivery, q *hitl.Question) error {
	channel, threadTS := d.Target, ""
	var thread []goslack.MsgOption
	if ch, ts := b.runThread(ctx, q); ch != "" && !escalationTarget(q, d.Target) {
		channel, threadTS, thread = ch, ts, []goslack.MsgOption{goslack.MsgOptionTS(ts)}
	} else if isUser(d.Target) {
		ch, _, _, err := b.api.OpenConversationContext(ctx, &goslack.OpenConversationParameters{Users: []string{d.Target}})
		if err != nil {
			return err
		}
		channel = ch.ID
	}
	mark := questionMark(q.ID, d.Target)
	ts, found, err := b.alreadyPosted(ctx, d, channel, threadTS, mark)
	if err != nil {
		return err
	}
	var msg blocks.Message
	if !found {
		msg = blocks.QuestionMessage(q, b.questionOptions(ctx, q))
		channel, ts, err = b.api.PostMessageContext(ctx, channel,
			append(thread, goslack.MsgOptionText(msg.Text, false), goslack.MsgOptionBlocks(msg.Blocks...), mark.option())...)
		if err != nil {
			return err
		}
	}
	// Slack has the message: from here on only the record is retried,
	// never the post.
	rec := &hitl.Delivered{QuestionID: q.ID, Target: d.Target, Channel: channel, TS: ts, PostedAt: b.cfg.Clock.Now()}
	if err := b.record(ctx, d, rec); err != nil {
		b.log.Error("slack message posted but not recorded before shutdown: the next holder of its target looks for it before posting",
			"question", q.ID, "channel", channel, "ts", ts, "err", err)
		return err
	}
	b.posted.recorded()
	b.redrawLinked(ctx, q)
	if msg.Truncated {
		for _, chunk := range blocks.FullTextChunks(q) {
			if _, _, err := b.api.PostMessageContext(ctx, channel, goslack.MsgOptionText(chunk, false), goslack.MsgOptionTS(ts)); err != nil {
				b.log.Warn("posting the full question text in the thread failed", "question", q.ID, "err", err)
				break
			}
		}
	}
	return nil
}

// update re-renders q's message at the delivery's target, in place.
func (b *Bot) update(ctx context.Context, d hitl.Delivery, q *hitl.Question) error {
	refs, err := b.outbox.Delivered(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("%w: %v", errStoreWrite, err)
	}
	msg := blocks.QuestionMessage(q, b.questionOptions(ctx, q))
	for _, ref := range refs {
		if ref.Target != d.Target {
			continue
		}
		_, _, _, err := b.api.UpdateMessageContext(ctx, ref.Channel, ref.TS,
			goslack.MsgOptionText(msg.Text, false), goslack.MsgOptionBlocks(msg.Blocks...))
		if err != nil {
			return err
		}
	}
	return b.record(ctx, d, nil)
}

// record completes d in the outbox (recording rec when not nil), retrying
// with the shared backoff until the store takes it: a delivery Slack has
// carried out is never handed out again while the bot runs. It fails only
// when ctx ends.
func (b *Bot) record(ctx context.Context, d hitl.Delivery, rec *hitl.Delivered) error {
	for {
		err := b.outbox.Complete(ctx, d, rec)
		if err == nil {
			b.resumed.Delete(d.Seq)
			return nil
		}
		b.log.Error("slack outbox: recording a delivery failed; retrying the record", "delivery", d.Seq, "question", d.QuestionID, "err", err)
		if !sleep(ctx, b.retry.failed()) {
			return fmt.Errorf("%w: %w", errStopping, err)
		}
	}
}

func (b *Bot) messageOptions() blocks.MessageOptions {
	return blocks.MessageOptions{Now: b.cfg.Clock.Now(), MentionAssignees: true, WebURL: b.cfg.WebURL}
}

// questionOptions are messageOptions for q's message: its run by its
// handle (as hitl runs shows it), or its id when that cannot be read.
func (b *Bot) questionOptions(ctx context.Context, q *hitl.Question) blocks.MessageOptions {
	o := b.messageOptions()
	if h, err := runhandle.Of(ctx, b.svc.Runs, q.RunID); err == nil {
		o.RunHandle = h
	}
	return o
}
