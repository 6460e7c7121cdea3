package slackfake

import (
	"testing"

	"github.com/slack-go/slack"
)

func TestConversationsHistoryAndReplies(t *testing.T) {
	srv := New(t, FailOnReject("thread_not_found"))
	api := newAPI(srv)
	ctx := testCtx(t)
	md := func(id string) slack.MsgOption {
		return slack.MsgOptionMetadata(slack.SlackMetadata{EventType: "hitl_question", EventPayload: map[string]any{"question_id": id}})
	}
	ch, first, err := api.PostMessageContext(ctx, "C0HITL", slack.MsgOptionText("first", false), md("q1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := api.PostMessageContext(ctx, ch, slack.MsgOptionText("a reply", false), slack.MsgOptionTS(first), md("q2")); err != nil {
		t.Fatal(err)
	}
	_, second, err := api.PostMessageContext(ctx, ch, slack.MsgOptionText("second", false), md("q3"))
	if err != nil {
		t.Fatal(err)
	}

	res, err := api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: ch, IncludeAllMetadata: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 2 || res.Messages[0].Timestamp != second || res.Messages[1].Timestamp != first {
		t.Fatalf("history %+v: want the two top-level messages, newest first", res.Messages)
	}
	if got := res.Messages[0].Metadata.EventPayload["question_id"]; got != "q3" {
		t.Errorf("metadata %v, want q3's", res.Messages[0].Metadata)
	}
	res, err = api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: ch, Oldest: first})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Timestamp != second || res.Messages[0].Metadata.EventType != "" {
		t.Fatalf("history after the first %+v: want the second only, without metadata unless asked", res.Messages)
	}
	msgs, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: ch, Timestamp: first, IncludeAllMetadata: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Timestamp != first || msgs[1].Metadata.EventPayload["question_id"] != "q2" {
		t.Fatalf("replies %+v: want the parent, then the reply", msgs)
	}
	if _, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: ch, Timestamp: "1.000000"}); slackErr(t, err) != "thread_not_found" {
		t.Errorf("replies of no thread: %v", err)
	}
	t.Run("by default replies answer 1000 messages, history 100", func(t *testing.T) {
		for range 150 {
			if _, _, err := api.PostMessageContext(ctx, ch, slack.MsgOptionText("more", false), slack.MsgOptionTS(second)); err != nil {
				t.Fatal(err)
			}
			if _, _, err := api.PostMessageContext(ctx, ch, slack.MsgOptionText("more", false)); err != nil {
				t.Fatal(err)
			}
		}
		msgs, more, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: ch, Timestamp: second})
		if err != nil || len(msgs) != 151 || more {
			t.Errorf("replies: %d messages, has_more %v, err %v; want the parent and its 150 replies", len(msgs), more, err)
		}
		res, err := api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: ch})
		if err != nil || len(res.Messages) != 100 || !res.HasMore {
			t.Errorf("history: %d messages, has_more %v, err %v; want 100 and more", len(res.Messages), res.HasMore, err)
		}
	})
}
