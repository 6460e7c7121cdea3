package slackfake

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
)

func newAPI(srv *Server) *slack.Client {
	return slack.New(srv.BotToken(), slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken(srv.AppToken()))
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// slackErr returns the error code of a Slack {"ok":false} answer.
func slackErr(t *testing.T, err error) string {
	t.Helper()
	var se slack.SlackErrorResponse
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a slack.SlackErrorResponse", err, err)
	}
	return se.Err
}

func TestAuthTest(t *testing.T) {
	srv := New(t, FailOnReject())
	resp, err := newAPI(srv).AuthTest()
	if err != nil {
		t.Fatal(err)
	}
	if resp.UserID != BotUserID || resp.BotID != BotID || resp.TeamID != TeamID {
		t.Fatalf("auth.test = %+v", resp)
	}
	c := srv.Calls("auth.test")[0]
	if c.ContentType != "application/x-www-form-urlencoded" || c.Param("token") != srv.BotToken() {
		t.Fatalf("auth.test sent as %q with token %q", c.ContentType, c.Param("token"))
	}
}

func TestTokens(t *testing.T) {
	srv := New(t)
	cases := []struct {
		token, want string
	}{
		{"", "not_authed"},
		{"xoxb-wrong", "invalid_auth"},
		{srv.AppToken(), "not_allowed_token_type"},
	}
	for _, tc := range cases {
		_, _, err := slack.New(tc.token, slack.OptionAPIURL(srv.APIURL())).PostMessage("C1", slack.MsgOptionText("hi", false))
		if got := slackErr(t, err); got != tc.want {
			t.Errorf("token %q: error %q, want %q", tc.token, got, tc.want)
		}
	}
	// apps.connections.open wants the app-level token in the Authorization header.
	_, _, err := slack.New(srv.BotToken(), slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken(srv.BotToken())).StartSocketModeContext(context.Background())
	if got := slackErr(t, err); got != "not_allowed_token_type" {
		t.Errorf("connections.open with bot token: %q", got)
	}
	_, url, err := newAPI(srv).StartSocketModeContext(context.Background())
	if err != nil || !strings.HasPrefix(url, "ws://127.0.0.1:") {
		t.Fatalf("connections.open = %q, %v", url, err)
	}
	c := srv.Calls("apps.connections.open")[1]
	if !strings.HasPrefix(c.ContentType, "application/json") {
		t.Errorf("apps.connections.open sent as %q", c.ContentType)
	}
	if len(srv.Rejections()) != 4 {
		t.Errorf("rejections = %v", srv.Rejections())
	}
}

func TestUnknownMethod(t *testing.T) {
	srv := New(t)
	resp, err := http.Post(srv.APIURL()+"chat.frobnicate", "application/x-www-form-urlencoded", strings.NewReader("token="+srv.BotToken()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"error":"unknown_method"`) {
		t.Fatalf("answer %s", body)
	}
}

func TestPostUpdateThread(t *testing.T) {
	srv := New(t, FailOnReject())
	api := newAPI(srv)
	blocks := []slack.Block{slack.NewSectionBlock(slack.NewTextBlockObject("mrkdwn", "*Question*", false, false), nil, nil)}
	ch, ts, err := api.PostMessage("C0QUESTION", slack.MsgOptionText("Question", false), slack.MsgOptionBlocks(blocks...))
	if err != nil {
		t.Fatal(err)
	}
	_, ts2, err := api.PostMessage(ch, slack.MsgOptionText("second", false))
	if err != nil {
		t.Fatal(err)
	}
	if ch != "C0QUESTION" || !(ts < ts2) || len(ts) != len("1700000000.000100") {
		t.Fatalf("ts %q then %q in %q", ts, ts2, ch)
	}
	if _, _, err := api.PostMessage(ch, slack.MsgOptionText("reply", false), slack.MsgOptionTS(ts)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := api.UpdateMessage(ch, ts, slack.MsgOptionText("Answered", false)); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Messages(ch)
	if len(msgs) != 3 {
		t.Fatalf("messages = %+v", msgs)
	}
	if m := msgs[0]; m.Text != "Answered" || !m.Updated || !strings.Contains(string(m.Blocks), "*Question*") {
		t.Errorf("updated message = %+v (blocks kept when chat.update omits them)", m)
	}
	if m := msgs[2]; m.ThreadTS != ts || m.Text != "reply" {
		t.Errorf("reply = %+v", m)
	}
	c := srv.Calls("chat.postMessage")[0]
	if c.ContentType != "application/x-www-form-urlencoded" || !strings.HasPrefix(c.Param("blocks"), "[") {
		t.Errorf("chat.postMessage sent as %q, blocks %q", c.ContentType, c.Param("blocks"))
	}
	link, err := api.GetPermalink(&slack.PermalinkParameters{Channel: ch, Ts: msgs[2].TS})
	if err != nil || !strings.Contains(link, "/archives/C0QUESTION/p") || !strings.Contains(link, "thread_ts="+ts) {
		t.Errorf("permalink %q, %v", link, err)
	}
	if len(srv.Rejections()) != 0 {
		t.Errorf("rejections: %v", srv.Rejections())
	}
}

func TestRejections(t *testing.T) {
	srv := New(t)
	api := newAPI(srv)
	many := make([]slack.Block, 51)
	for i := range many {
		many[i] = slack.NewDividerBlock()
	}
	long := slack.NewSectionBlock(slack.NewTextBlockObject("mrkdwn", strings.Repeat("a", 3001), false, false), nil, nil)
	cases := []struct {
		name string
		call func() error
		want string
	}{
		{"51 blocks", func() error {
			_, _, err := api.PostMessage("C1", slack.MsgOptionText("t", false), slack.MsgOptionBlocks(many...))
			return err
		}, "invalid_blocks"},
		{"section 3001", func() error {
			_, _, err := api.PostMessage("C1", slack.MsgOptionText("t", false), slack.MsgOptionBlocks(long))
			return err
		}, "invalid_blocks"},
		{"no text", func() error { _, _, err := api.PostMessage("C1"); return err }, "no_text"},
		{"text 40001", func() error {
			_, _, err := api.PostMessage("C1", slack.MsgOptionText(strings.Repeat("a", 40001), false))
			return err
		}, "msg_too_long"},
		{"no channel", func() error { _, _, err := api.PostMessage("", slack.MsgOptionText("t", false)); return err }, "channel_not_found"},
		{"update unknown", func() error {
			_, _, _, err := api.UpdateMessage("C1", "1700000000.000100", slack.MsgOptionText("t", false))
			return err
		}, "message_not_found"},
		{"ephemeral without user", func() error { _, err := api.PostEphemeral("C1", "", slack.MsgOptionText("t", false)); return err }, "invalid_arguments"},
		{"thread_ts of nothing", func() error {
			_, _, err := api.PostMessage("C1", slack.MsgOptionText("t", false), slack.MsgOptionTS("1.000001"))
			return err
		}, "thread_not_found"},
	}
	for _, tc := range cases {
		if got := slackErr(t, tc.call()); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	rej := srv.Rejections()
	if len(rej) != len(cases) {
		t.Fatalf("%d rejections recorded, want %d", len(rej), len(cases))
	}
	if m := rej[1].Messages; len(m) != 1 || !strings.Contains(m[0], "3001") || !strings.Contains(m[0], "/blocks/0/text/text") {
		t.Errorf("messages = %q", m)
	}
	if len(srv.Messages("C1")) != 0 {
		t.Errorf("rejected messages were stored")
	}
}

// errorfTB captures Errorf calls of FailOnReject.
type errorfTB struct {
	testing.TB
	errs chan string
}

func (e *errorfTB) Errorf(format string, args ...any) {
	e.errs <- strings.TrimSpace(strings.ReplaceAll(format, "%s", "")) + ": " + strings.Join(strings.Fields(strings.TrimSpace(sprint(args...))), " ")
}

func sprint(args ...any) string {
	var b strings.Builder
	for _, a := range args {
		if s, ok := a.(interface{ String() string }); ok {
			b.WriteString(s.String())
		}
	}
	return b.String()
}

func TestFailOnReject(t *testing.T) {
	tb := &errorfTB{TB: t, errs: make(chan string, 10)}
	srv := New(tb, FailOnReject("already_reacted"))
	api := newAPI(srv)
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("hi", false))
	if err != nil {
		t.Fatal(err)
	}
	ref := slack.NewRefToMessage("C1", ts)
	if err := api.AddReaction("white_check_mark", ref); err != nil {
		t.Fatal(err)
	}
	if got := slackErr(t, api.AddReaction("white_check_mark", ref)); got != "already_reacted" {
		t.Fatalf("second reaction: %q", got)
	}
	if got := slackErr(t, api.AddReaction("x", slack.NewRefToMessage("C1", "1.000002"))); got != "message_not_found" {
		t.Fatalf("reaction on nothing: %q", got)
	}
	if len(tb.errs) != 1 {
		t.Fatalf("FailOnReject reported %d errors, want 1 (already_reacted is allowed)", len(tb.errs))
	}
	if e := <-tb.errs; !strings.Contains(e, "reactions.add: message_not_found") {
		t.Errorf("reported %q", e)
	}
	if r := srv.Reactions(); len(r) != 1 || r[0].Name != "white_check_mark" || r[0].User != BotUserID {
		t.Errorf("reactions = %+v", r)
	}
}

func TestConversationsOpen(t *testing.T) {
	srv := New(t, FailOnReject())
	api := newAPI(srv)
	ch1, _, already, err := api.OpenConversation(&slack.OpenConversationParameters{Users: []string{"U1"}})
	if err != nil || already || !strings.HasPrefix(ch1.ID, "D") {
		t.Fatalf("open = %+v, %v, %v", ch1, already, err)
	}
	ch2, _, already, err := api.OpenConversation(&slack.OpenConversationParameters{Users: []string{"U1"}})
	if err != nil || !already || ch2.ID != ch1.ID {
		t.Fatalf("reopen = %q, %v, %v", ch2.ID, already, err)
	}
	if ev := srv.AppHomeOpened("U1").Event(); ev["channel"] != ch1.ID {
		t.Errorf("app_home_opened channel %v, DM %v", ev["channel"], ch1.ID)
	}
	if _, _, err := api.PostMessage(ch1.ID, slack.MsgOptionText("hello", false)); err != nil {
		t.Fatal(err)
	}
}

func TestStrictChannels(t *testing.T) {
	srv := New(t, WithChannel("C0KNOWN", "hitl"))
	api := newAPI(srv)
	if _, _, err := api.PostMessage("C0KNOWN", slack.MsgOptionText("hi", false)); err != nil {
		t.Fatal(err)
	}
	if got := slackErr(t, func() error { _, _, err := api.PostMessage("C0OTHER", slack.MsgOptionText("hi", false)); return err }()); got != "channel_not_found" {
		t.Fatalf("unknown channel: %q", got)
	}
}

func TestWaitForCall(t *testing.T) {
	srv := New(t, FailOnReject())
	api := newAPI(srv)
	go func() { _, _, _ = api.PostMessage("C1", slack.MsgOptionText("later", false)) }()
	c, err := srv.WaitForCall(testCtx(t), "chat.postMessage", func(c Call) bool { return c.OK && c.Param("text") == "later" })
	if err != nil {
		t.Fatal(err)
	}
	var resp struct{ TS string }
	_ = json.Unmarshal(c.Response, &resp)
	if m, ok := srv.Message("C1", resp.TS); !ok || m.Text != "later" {
		t.Fatalf("message %+v, %v", m, ok)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := srv.WaitForCall(ctx, "chat.update", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitForCall on a cancelled context: %v", err)
	}
}

func TestJSONBodies(t *testing.T) {
	srv := New(t, FailOnReject("not_authed"))
	postJSON := func(body string, bearer bool) string {
		req, _ := http.NewRequest("POST", srv.APIURL()+"chat.postMessage", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
		if bearer {
			req.Header.Set("Authorization", "Bearer "+srv.BotToken())
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	body := `{"channel":"C1","text":"json","blocks":[{"type":"section","text":{"type":"mrkdwn","text":"*hi*"}}]}`
	if got := postJSON(body, true); !strings.Contains(got, `"ok":true`) {
		t.Fatalf("JSON post: %s", got)
	}
	if m := srv.Messages("C1"); len(m) != 1 || !strings.Contains(string(m[0].Blocks), "*hi*") {
		t.Fatalf("messages %+v", m)
	}
	// Slack ignores a token inside a JSON body.
	if got := postJSON(`{"token":"`+srv.BotToken()+`","channel":"C1","text":"x"}`, false); !strings.Contains(got, "not_authed") {
		t.Fatalf("token in JSON body: %s", got)
	}
}

func TestResponseURLReplaceOriginal(t *testing.T) {
	srv := New(t, FailOnReject())
	api := newAPI(srv)
	btn := slack.NewButtonBlockElement("ok", "1", slack.NewTextBlockObject("plain_text", "OK", false, false))
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("q", false), slack.MsgOptionBlocks(slack.NewActionBlock("b", btn)))
	if err != nil {
		t.Fatal(err)
	}
	url := srv.BlockActions("U1", "C1", ts, "ok", "b", "")["response_url"].(string)
	if _, _, err := api.PostMessage("", slack.MsgOptionText("done", false), slack.MsgOptionReplaceOriginal(url)); err != nil {
		t.Fatal(err)
	}
	if m, _ := srv.Message("C1", ts); m.Text != "done" || m.Blocks != nil || !m.Updated {
		t.Fatalf("message after replace_original: %+v", m)
	}
	if c := srv.Calls("response_url"); len(c) != 1 || !c[0].OK {
		t.Fatalf("response_url calls %+v", c)
	}
}

func TestUserGroups(t *testing.T) {
	srv := New(t, WithUserGroup("S0ONCALL", "U1", "U2"), FailOnReject("no_such_subteam"))
	api := newAPI(srv)
	users, err := api.GetUserGroupMembers("S0ONCALL")
	if err != nil || strings.Join(users, ",") != "U1,U2" {
		t.Fatalf("members %v, %v", users, err)
	}
	srv.SetUserGroup("S0ONCALL", "U3")
	if users, _ := api.GetUserGroupMembers("S0ONCALL"); strings.Join(users, ",") != "U3" {
		t.Fatalf("members after SetUserGroup %v", users)
	}
	if _, err := api.GetUserGroupMembers("S0NOPE"); slackErr(t, err) != "no_such_subteam" {
		t.Fatalf("unknown group: %v", err)
	}
}
