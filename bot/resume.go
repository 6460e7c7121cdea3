package bot

import (
	"context"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// A replica that dies between Slack's accepting a post and recording it
// leaves the post unrecorded; the replica that takes its target over is
// handed that delivery again (Delivery.Resumed). Every question message
// carries metadata naming its question and target, so the new holder
// looks for it among the channel's recent messages and records it
// instead of posting it a second time.

// postedEventType is the metadata event type of question messages.
const postedEventType = "hitl_question"

// resumeLookback is how far back a resumed post is looked for: the
// previous holder posted it before its claim (a lease of seconds) lapsed.
const resumeLookback = 10 * time.Minute

// postMetadata names question qid's message to target.
func postMetadata(qid, target string) slack.MsgOption {
	return slack.MsgOptionMetadata(slack.SlackMetadata{EventType: postedEventType,
		EventPayload: map[string]any{"question_id": qid, "target": target}})
}

// resuming reports whether d may have been posted by a process that
// died: handed over resumed, and not settled by this process since.
func (b *Bot) resuming(d hitl.Delivery) bool {
	if d.Resumed {
		b.resumed.Store(d.Seq, true)
		return true
	}
	_, ok := b.resumed.Load(d.Seq)
	return ok
}

// findPosted looks for the bot's message of question qid to target among
// the recent messages of channel (of the thread thread, when set). An
// error is Slack's: the delivery is tried again.
func (b *Bot) findPosted(ctx context.Context, channel, thread, qid, target string) (ts string, found bool, err error) {
	oldest := fmt.Sprintf("%d.000000", b.cfg.Clock.Now().Add(-resumeLookback).Unix())
	var msgs []slack.Message
	if thread != "" {
		msgs, _, _, err = b.api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{
			ChannelID: channel, Timestamp: thread, Oldest: oldest, Limit: 200, IncludeAllMetadata: true})
	} else {
		var res *slack.GetConversationHistoryResponse
		res, err = b.api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{
			ChannelID: channel, Oldest: oldest, Limit: 200, IncludeAllMetadata: true})
		if res != nil {
			msgs = res.Messages
		}
	}
	if err != nil {
		return "", false, err
	}
	for _, m := range msgs {
		md := m.Metadata
		if md.EventType == postedEventType && md.EventPayload["question_id"] == qid && md.EventPayload["target"] == target &&
			b.identity.isSelf(m.User, m.BotID) {
			return m.Timestamp, true, nil
		}
	}
	return "", false, nil
}
