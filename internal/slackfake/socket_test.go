package slackfake

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// harness runs a real slack-go Socket Mode client against the fake.
type harness struct {
	api *slack.Client
	sm  *socketmode.Client
	got chan socketmode.Event // every event the client emitted, after acking
}

// responder decides the ack of a request: ack=false leaves it unacked.
type responder func(evt socketmode.Event) (payload any, ack bool)

func ackAll(socketmode.Event) (any, bool) { return nil, true }

func startClient(t *testing.T, srv *Server, respond responder) *harness {
	t.Helper()
	h := &harness{api: newAPI(srv), got: make(chan socketmode.Event, 100)}
	h.sm = socketmode.New(h.api)
	ctx, cancel := context.WithCancel(context.Background())
	runDone, loopDone := make(chan error, 1), make(chan struct{})
	go func() { runDone <- h.sm.RunContext(ctx) }()
	go func() {
		defer close(loopDone)
		for {
			select {
			case <-ctx.Done():
				return
			case evt := <-h.sm.Events:
				switch evt.Type {
				case socketmode.EventTypeEventsAPI, socketmode.EventTypeInteractive, socketmode.EventTypeSlashCommand:
					if payload, ack := respond(evt); ack {
						_ = h.sm.Ack(*evt.Request, payload)
					}
				}
				select {
				case h.got <- evt:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-runDone
		<-loopDone
	})
	return h
}

// next returns the next event of type typ the client emitted.
func (h *harness) next(t *testing.T, typ socketmode.EventType) socketmode.Event {
	t.Helper()
	ctx := testCtx(t)
	for {
		select {
		case evt := <-h.got:
			if evt.Type == typ {
				return evt
			}
		case <-ctx.Done():
			t.Fatalf("no %s event from the client", typ)
		}
	}
}

func TestSocketModeHelloAndEvent(t *testing.T) {
	srv := New(t, FailOnReject())
	h := startClient(t, srv, ackAll)
	hello := h.next(t, socketmode.EventTypeHello)
	if hello.Request.NumConnections != 1 || hello.Request.ConnectionInfo.AppID != AppID || hello.Request.DebugInfo.Host == "" {
		t.Errorf("hello = %+v", hello.Request)
	}
	ctx := testCtx(t)
	if err := srv.WaitConnected(ctx, 1); err != nil {
		t.Fatal(err)
	}
	ack, err := srv.SendEvent(ctx, srv.MessageEvent("U0ALICE", "C0HITL", "hello bot", ""))
	if err != nil {
		t.Fatal(err)
	}
	if ack.Envelope.Type != "events_api" || ack.EnvelopeID != ack.Envelope.EnvelopeID || ack.Payload != nil {
		t.Errorf("ack = %+v", ack)
	}
	evt := h.next(t, socketmode.EventTypeEventsAPI)
	if evt.Request.EnvelopeID != ack.EnvelopeID || evt.Request.RetryAttempt != 0 || evt.Request.AcceptsResponsePayload {
		t.Errorf("request = %+v", evt.Request)
	}
	api := evt.Data.(slackevents.EventsAPIEvent)
	msg, ok := api.InnerEvent.Data.(*slackevents.MessageEvent)
	if !ok || msg.Text != "hello bot" || msg.User != "U0ALICE" || msg.Channel != "C0HITL" || msg.ChannelType != "channel" || msg.TimeStamp == "" {
		t.Fatalf("inner event = %#v", api.InnerEvent.Data)
	}
	cb := api.Data.(*slackevents.EventsAPICallbackEvent)
	if cb.EventID == "" || cb.EventTime == 0 || cb.TeamID != TeamID || cb.APIAppID != AppID {
		t.Errorf("callback = %+v", cb)
	}
	// The user's message is stored: the bot can reply in its thread and react.
	if _, _, err := h.api.PostMessage("C0HITL", slack.MsgOptionText("answer", false), slack.MsgOptionTS(msg.TimeStamp)); err != nil {
		t.Fatal(err)
	}
	if err := h.api.AddReaction("eyes", slack.NewRefToMessage("C0HITL", msg.TimeStamp)); err != nil {
		t.Fatal(err)
	}
	// A thread reply from the user, and a bot-authored message.
	if _, err := srv.SendEvent(ctx, srv.MessageEvent("U0ALICE", "C0HITL", "yes", msg.TimeStamp)); err != nil {
		t.Fatal(err)
	}
	reply := h.next(t, socketmode.EventTypeEventsAPI).Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.MessageEvent)
	if reply.ThreadTimeStamp != msg.TimeStamp || reply.Text != "yes" {
		t.Errorf("reply = %+v", reply)
	}
	if _, err := srv.SendEvent(ctx, srv.BotMessageEvent(BotID, "C0HITL", "from the bot", "")); err != nil {
		t.Fatal(err)
	}
	bot := h.next(t, socketmode.EventTypeEventsAPI).Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.MessageEvent)
	if bot.BotID != BotID || bot.User != BotUserID || bot.SubType != "" {
		t.Errorf("bot message = %+v", bot)
	}
}

func TestSocketModeDisconnectReconnect(t *testing.T) {
	srv := New(t, FailOnReject())
	h := startClient(t, srv, ackAll)
	ctx := testCtx(t)
	if err := srv.WaitConnected(ctx, 1); err != nil {
		t.Fatal(err)
	}
	srv.Disconnect("refresh_requested")
	// Sending right away waits for the client to come back.
	ack, err := srv.SendEvent(ctx, srv.AppHomeOpened("U0ALICE"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Calls("apps.connections.open")); n != 2 || srv.Connections() != 2 {
		t.Errorf("apps.connections.open called %d times, %d connections", n, srv.Connections())
	}
	if ack.Conn != 2 {
		t.Errorf("ack on connection %d, want 2", ack.Conn)
	}
	home := h.next(t, socketmode.EventTypeEventsAPI).Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.AppHomeOpenedEvent)
	if home.User != "U0ALICE" || home.Tab != "home" || home.Channel == "" {
		t.Errorf("app_home_opened = %+v", home)
	}
	// An abrupt drop also makes slack-go reconnect.
	srv.DropSockets()
	if err := srv.WaitConnected(ctx, 3); err != nil {
		t.Fatal(err)
	}
}

func TestNoAckAndRedeliver(t *testing.T) {
	srv := New(t, WithAckTimeout(300*time.Millisecond))
	h := startClient(t, srv, func(evt socketmode.Event) (any, bool) {
		return nil, evt.Request.RetryAttempt > 0 // drop first deliveries
	})
	ctx := testCtx(t)
	ack, err := srv.SendEvent(ctx, srv.MessageEvent("U0ALICE", "C0HITL", "hi", ""))
	if !errors.Is(err, ErrNoAck) {
		t.Fatalf("unacked event: %v", err)
	}
	first := h.next(t, socketmode.EventTypeEventsAPI)
	ack2, err := srv.Redeliver(ctx, ack.Envelope, 1)
	if err != nil {
		t.Fatal(err)
	}
	retry := h.next(t, socketmode.EventTypeEventsAPI)
	if retry.Request.EnvelopeID != first.Request.EnvelopeID || ack2.EnvelopeID != first.Request.EnvelopeID {
		t.Errorf("redelivery changed the envelope id: %q vs %q", retry.Request.EnvelopeID, first.Request.EnvelopeID)
	}
	if retry.Request.RetryAttempt != 1 || retry.Request.RetryReason != "timeout" {
		t.Errorf("retry fields = %d %q", retry.Request.RetryAttempt, retry.Request.RetryReason)
	}
	if acks := srv.Acks(); len(acks) != 1 || acks[0].Late {
		t.Errorf("acks = %+v", acks)
	}
}

func TestSendWaitsForConnection(t *testing.T) {
	srv := New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := srv.SendEvent(ctx, srv.AppHomeOpened("U1")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("send without a client: %v", err)
	}
}

func TestSlashCommand(t *testing.T) {
	srv := New(t, FailOnReject())
	h := startClient(t, srv, func(evt socketmode.Event) (any, bool) {
		return map[string]any{"text": "working on it"}, true
	})
	ctx := testCtx(t)
	ack, err := srv.SendSlashCommand(ctx, srv.SlashCommand("U0ALICE", "C0HITL", "/hitl", "status"))
	if err != nil {
		t.Fatal(err)
	}
	if string(ack.Payload) != `{"text":"working on it"}` || !ack.Envelope.AcceptsResponsePayload {
		t.Errorf("ack = %s, accepts_response_payload %v", ack.Payload, ack.Envelope.AcceptsResponsePayload)
	}
	cmd := h.next(t, socketmode.EventTypeSlashCommand).Data.(slack.SlashCommand)
	if cmd.Command != "/hitl" || cmd.Text != "status" || cmd.UserID != "U0ALICE" || cmd.ChannelID != "C0HITL" || cmd.TriggerID == "" {
		t.Fatalf("command = %+v", cmd)
	}
	// Answering through response_url posts to the channel.
	if _, _, err := h.api.PostMessage("", slack.MsgOptionText("All good", false),
		slack.MsgOptionResponseURL(cmd.ResponseURL, slack.ResponseTypeInChannel)); err != nil {
		t.Fatal(err)
	}
	if msgs := srv.Messages("C0HITL"); len(msgs) != 1 || msgs[0].Text != "All good" {
		t.Errorf("messages = %+v", msgs)
	}
}

func TestBlockActionsRoundTrip(t *testing.T) {
	srv := New(t, FailOnReject())
	var opened chan *slack.ViewResponse = make(chan *slack.ViewResponse, 1)
	var h *harness
	h = startClient(t, srv, func(evt socketmode.Event) (any, bool) {
		if cb, ok := evt.Data.(slack.InteractionCallback); ok && cb.Type == slack.InteractionTypeBlockActions {
			go func() { // like a bot: ack first, then open the modal
				resp, _ := h.api.OpenView(cb.TriggerID, slack.ModalViewRequest{
					Type: slack.VTModal, Title: slack.NewTextBlockObject("plain_text", "Answer", false, false),
					Submit:     slack.NewTextBlockObject("plain_text", "Send", false, false),
					CallbackID: "answer", PrivateMetadata: "q-1",
					Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewInputBlock("reason",
						slack.NewTextBlockObject("plain_text", "Why?", false, false), nil,
						slack.NewPlainTextInputBlockElement(nil, "reason_input"))}},
				})
				opened <- resp
			}()
		}
		return nil, true
	})
	ctx := testCtx(t)
	approve := slack.NewButtonBlockElement("approve", "q-1", slack.NewTextBlockObject("plain_text", "Approve", false, false))
	pick := slack.NewOptionsSelectBlockElement("static_select", nil, "pick",
		slack.NewOptionBlockObject("a", slack.NewTextBlockObject("plain_text", "Alpha", false, false), nil),
		slack.NewOptionBlockObject("b", slack.NewTextBlockObject("plain_text", "Beta", false, false), nil))
	_, ts, err := h.api.PostMessage("C0HITL", slack.MsgOptionText("Approve?", false),
		slack.MsgOptionBlocks(slack.NewActionBlock("choices", approve, pick)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.SendInteractive(ctx, srv.BlockActions("U0ALICE", "C0HITL", ts, "approve", "choices", "")); err != nil {
		t.Fatal(err)
	}
	cb := h.next(t, socketmode.EventTypeInteractive).Data.(slack.InteractionCallback)
	act := cb.ActionCallback.BlockActions[0]
	if act.ActionID != "approve" || act.BlockID != "choices" || act.Value != "q-1" || act.Type != "button" || act.Text.Text != "Approve" {
		t.Errorf("action = %+v", act)
	}
	if cb.Container.Type != "message" || cb.Container.MessageTs != ts || cb.Container.ChannelID != "C0HITL" ||
		cb.Channel.ID != "C0HITL" || cb.User.ID != "U0ALICE" || cb.Message.Text != "Approve?" ||
		len(cb.Message.Blocks.BlockSet) != 1 || cb.ResponseURL == "" || cb.Team.ID != TeamID {
		t.Errorf("callback = %+v", cb)
	}
	resp := <-opened
	if resp == nil || resp.View.ID == "" || resp.View.CallbackID != "answer" {
		t.Fatalf("views.open = %+v", resp)
	}
	if c := srv.Calls("views.open")[0]; !c.OK || c.ContentType != "application/json" {
		t.Errorf("views.open call %+v", c)
	}

	// A select sends the chosen option.
	if _, err := srv.SendInteractive(ctx, srv.BlockActions("U0ALICE", "C0HITL", ts, "pick", "choices", "b")); err != nil {
		t.Fatal(err)
	}
	sel := h.next(t, socketmode.EventTypeInteractive).Data.(slack.InteractionCallback).ActionCallback.BlockActions[0]
	if sel.Type != "static_select" || sel.SelectedOption.Value != "b" || sel.SelectedOption.Text.Text != "Beta" {
		t.Errorf("select action = %+v", sel)
	}
	<-opened // the second block_actions opened another modal

	// Submitting the first modal, as the bot opened it.
	view := srv.OpenedViews()[0]
	ack, err := srv.SendInteractive(ctx, srv.ViewSubmission("U0ALICE", view, map[string]map[string]string{
		"reason": {"reason_input": "looks right"}}))
	if err != nil {
		t.Fatal(err)
	}
	if !ack.Envelope.AcceptsResponsePayload {
		t.Errorf("view_submission envelope does not accept a response payload")
	}
	sub := h.next(t, socketmode.EventTypeInteractive).Data.(slack.InteractionCallback)
	if sub.Type != slack.InteractionTypeViewSubmission || sub.View.ID != view.ID || sub.View.CallbackID != "answer" ||
		sub.View.PrivateMetadata != "q-1" || sub.View.State.Values["reason"]["reason_input"].Value != "looks right" {
		t.Errorf("view_submission = %+v", sub.View)
	}
}

func TestBuilderMisuseFailsTest(t *testing.T) {
	tb := &errorfTB{TB: t, errs: make(chan string, 10)}
	srv := New(tb)
	api := newAPI(srv)
	btn := slack.NewButtonBlockElement("approve", "yes", slack.NewTextBlockObject("plain_text", "Approve", false, false))
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("q", false), slack.MsgOptionBlocks(slack.NewActionBlock("b", btn)))
	if err != nil {
		t.Fatal(err)
	}
	srv.BlockActions("U1", "C1", ts, "reject", "b", "")    // no such button
	srv.BlockActions("U1", "C1", ts, "approve", "b", "no") // wrong value
	srv.BlockActions("U1", "C1", "1.000001", "approve", "b", "")
	if n := len(tb.errs); n != 3 {
		t.Fatalf("%d errors reported, want 3", n)
	}
	p := srv.BlockActions("U1", "C1", ts, "approve", "b", "yes")
	var decoded slack.InteractionCallback
	if err := json.Unmarshal(p.JSON(), &decoded); err != nil || decoded.ActionCallback.BlockActions[0].Value != "yes" {
		t.Fatalf("payload %s: %v", p.JSON(), err)
	}
}

func TestStaleClick(t *testing.T) {
	tb := &errorfTB{TB: t, errs: make(chan string, 10)}
	srv := New(tb)
	api := newAPI(srv)
	btn := slack.NewButtonBlockElement("approve", "yes", slack.NewTextBlockObject("plain_text", "Approve", false, false))
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("q", false), slack.MsgOptionBlocks(slack.NewActionBlock("b", btn)))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := api.UpdateMessage("C1", ts, slack.MsgOptionText("Answered by someone", false), slack.MsgOptionBlocks()); err != nil {
		t.Fatal(err)
	}
	if m, _ := srv.Message("C1", ts); m.Blocks != nil || m.Updates != 1 {
		t.Fatalf("blocks not cleared by an empty blocks argument: %+v", m)
	}
	srv.BlockActions("U1", "C1", ts, "approve", "b", "")
	if len(tb.errs) != 1 {
		t.Fatalf("clicking a button that is gone must fail the test")
	}
	p := srv.BlockActions("U1", "C1", ts, "approve", "b", "", StaleClick())
	if len(tb.errs) != 1 {
		t.Fatalf("StaleClick reported %v", <-tb.errs)
	}
	var cb slack.InteractionCallback
	if err := json.Unmarshal(p.JSON(), &cb); err != nil {
		t.Fatal(err)
	}
	if cb.Message.Text != "q" || len(cb.Message.Blocks.BlockSet) != 1 || cb.ActionCallback.BlockActions[0].Value != "yes" {
		t.Errorf("stale payload %s", p.JSON())
	}
}

func TestReconnectThroughFailures(t *testing.T) {
	srv := New(t, FailOnReject())
	startClient(t, srv, ackAll)
	ctx := testCtx(t)
	if err := srv.WaitConnected(ctx, 1); err != nil {
		t.Fatal(err)
	}
	srv.FailNext("apps.connections.open", 2, http.StatusServiceUnavailable, 0)
	srv.Disconnect("link_disabled")
	if err := srv.WaitConnected(ctx, 2); err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls("apps.connections.open")
	if len(calls) != 4 || calls[1].Status != 503 || calls[2].Status != 503 || !calls[3].OK {
		t.Fatalf("apps.connections.open calls: %d", len(calls))
	}
}

func TestWrongAppTokenIsFatal(t *testing.T) {
	srv := New(t)
	api := slack.New(srv.BotToken(), slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken("xapp-1-wrong"))
	sm := socketmode.New(api)
	ctx := testCtx(t)
	go func() {
		for {
			select {
			case <-sm.Events:
			case <-ctx.Done():
				return
			}
		}
	}()
	if err := sm.RunContext(ctx); err == nil || err.Error() != "invalid_auth" {
		t.Fatalf("RunContext with a wrong app token: %v", err)
	}
}
