package slackfake_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/hitlbot/hitl/internal/slackfake"
)

// miniBot stands in for the real bot: it posts a question, and marks it
// answered when the button is clicked.
func miniBot(ctx context.Context, sm *socketmode.Client) {
	go func() { _ = sm.RunContext(ctx) }()
	for {
		select {
		case <-ctx.Done():
			return
		case evt := <-sm.Events:
			switch evt.Type {
			case socketmode.EventTypeHello:
				btn := slack.NewButtonBlockElement("approve", "q-1", slack.NewTextBlockObject("plain_text", "Approve", false, false))
				_, _, _ = sm.PostMessageContext(ctx, "C0HITL", slack.MsgOptionText("Deploy?", false),
					slack.MsgOptionBlocks(slack.NewActionBlock("q-1", btn)))
			case socketmode.EventTypeInteractive:
				_ = sm.Ack(*evt.Request)
				cb := evt.Data.(slack.InteractionCallback)
				_, _, _, _ = sm.UpdateMessageContext(ctx, cb.Channel.ID, cb.Container.MessageTs,
					slack.MsgOptionText("Approved by "+cb.User.Name, false), slack.MsgOptionBlocks())
			}
		}
	}
}

// TestUsageExample is the usage example of the package documentation, run.
func TestUsageExample(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	srv := slackfake.New(t, slackfake.FailOnReject())
	api := slack.New(srv.BotToken(), slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken(srv.AppToken()))
	go miniBot(ctx, socketmode.New(api))
	q, err := srv.WaitForMessage(ctx, "C0HITL", func(m slackfake.Message) bool { return strings.Contains(m.Text, "Deploy?") })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.SendInteractive(ctx, srv.BlockActions("U0ALICE", "C0HITL", q.TS, "approve", "q-1", "")); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.WaitForCall(ctx, "chat.update", func(c slackfake.Call) bool { return c.OK && c.Param("ts") == q.TS }); err != nil {
		t.Fatal(err)
	}
	if m, _ := srv.Message("C0HITL", q.TS); m.Text != "Approved by user.u0alice" {
		t.Fatalf("message = %+v", m)
	}
	if r := srv.Rejections(); len(r) > 0 {
		t.Fatal(r)
	}
}
