package slack

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
	goslack "github.com/slack-go/slack"
)

// A replica that dies between Slack's accepting a post and recording it
// leaves the post unrecorded; the replica that takes its target over is
// handed that delivery again (Delivery.Resumed). Every message the bot
// posts once for a delivery (a question's message to a target, a run's
// live message, an alert) carries metadata naming what it is, its mark,
// so the new holder looks for it among the channel's recent messages
// and records it instead of posting it a second time.

// The metadata event types of the bot's marked messages: one per kind of
// message, so each payload names only what identifies one of its kind.
const (
	questionEventType = "hitl_question" // payload: question_id, target
	runEventType      = "hitl_run"      // payload: run_id
	alertEventType    = "hitl_alert"    // payload: event_seq
)

// resumeLookback is how far back a resumed post is looked for: the
// previous holder posted it before its claim (a lease of seconds) lapsed.
const resumeLookback = 10 * time.Minute

// postMark is the metadata of one message the bot posts: its event type
// and the payload fields that identify it. Payload values are strings
// (what Slack's JSON gives back compares equal).
type postMark struct {
	eventType string
	payload   map[string]any
}

// questionMark marks question qid's message to target.
func questionMark(qid, target string) postMark {
	return postMark{questionEventType, map[string]any{"question_id": qid, "target": target}}
}

// runMark marks run id's live message.
func runMark(id string) postMark {
	return postMark{runEventType, map[string]any{"run_id": id}}
}

// alertMark marks the post of the alert event seq.
func alertMark(seq uint64) postMark {
	return postMark{alertEventType, map[string]any{"event_seq": strconv.FormatUint(seq, 10)}}
}

// option attaches the mark to a post.
func (m postMark) option() goslack.MsgOption {
	return goslack.MsgOptionMetadata(goslack.SlackMetadata{EventType: m.eventType, EventPayload: m.payload})
}

// on reports whether md is the mark.
func (m postMark) on(md goslack.SlackMetadata) bool {
	if md.EventType != m.eventType {
		return false
	}
	for k, v := range m.payload {
		if md.EventPayload[k] != v {
			return false
		}
	}
	return true
}

// noteResumed remembers that d was handed over Resumed: it is looked
// for at every try until this process completes it (record), whatever
// failed first.
func (b *Bot) noteResumed(d hitl.Delivery) {
	if d.Resumed {
		b.resumed.Store(d.Seq, true)
	}
}

// resuming reports whether d may have been posted by a process that
// died: handed over resumed, and not completed by this process since.
func (b *Bot) resuming(d hitl.Delivery) bool {
	_, ok := b.resumed.Load(d.Seq)
	return ok
}

// alreadyPosted reports whether d, when a process that died may have
// posted it (resuming), was posted: the bot's message marked m is among
// the recent messages of channel (of the thread thread, when set). An
// error is Slack's for the moment (the delivery is tried again). When
// Slack will not look at all (a missing history scope) it reports not
// found: posting risks a second message, not posting loses the message.
func (b *Bot) alreadyPosted(ctx context.Context, d hitl.Delivery, channel, thread string, m postMark) (ts string, found bool, err error) {
	if !b.resuming(d) {
		return "", false, nil
	}
	ts, found, err = b.findPosted(ctx, channel, thread, m)
	var rl *goslack.RateLimitedError
	switch {
	case err != nil && (transient(err) || errors.As(err, &rl) || ctx.Err() != nil):
		return "", false, err // looked for again after Slack's wait or the backoff
	case err != nil:
		b.log.Warn("slack: could not look for a post a stopped replica may have made; posting",
			"kind", d.Kind, "question", d.QuestionID, "err", err)
	case found:
		b.log.Warn("slack message posted by a replica that stopped before recording it: recorded, not posted again",
			"kind", d.Kind, "question", d.QuestionID, "channel", channel, "ts", ts)
	}
	return ts, found, nil
}

// findPosted looks for the bot's message marked m among the recent
// messages of channel (of the thread thread, when set).
func (b *Bot) findPosted(ctx context.Context, channel, thread string, m postMark) (ts string, found bool, err error) {
	oldest := fmt.Sprintf("%d.000000", b.cfg.Clock.Now().Add(-resumeLookback).Unix())
	var msgs []goslack.Message
	if thread != "" {
		msgs, _, _, err = b.api.GetConversationRepliesContext(ctx, &goslack.GetConversationRepliesParameters{
			ChannelID: channel, Timestamp: thread, Oldest: oldest, Limit: 200, IncludeAllMetadata: true})
	} else {
		var res *goslack.GetConversationHistoryResponse
		res, err = b.api.GetConversationHistoryContext(ctx, &goslack.GetConversationHistoryParameters{
			ChannelID: channel, Oldest: oldest, Limit: 200, IncludeAllMetadata: true})
		if res != nil {
			msgs = res.Messages
		}
	}
	if err != nil {
		return "", false, err
	}
	for _, msg := range msgs {
		if m.on(msg.Metadata) && b.identity.isSelf(msg.User, msg.BotID) {
			return msg.Timestamp, true, nil
		}
	}
	return "", false, nil
}
