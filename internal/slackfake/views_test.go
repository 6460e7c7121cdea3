package slackfake

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
)

func modal(title string) slack.ModalViewRequest {
	return slack.ModalViewRequest{
		Type:  slack.VTModal,
		Title: slack.NewTextBlockObject("plain_text", title, false, false),
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewSectionBlock(slack.NewTextBlockObject("mrkdwn", "Details", false, false), nil, nil)}},
	}
}

// triggerFor posts a message with a button and returns the trigger_id of a
// click on it.
func triggerFor(t *testing.T, srv *Server, api *slack.Client, user string) string {
	t.Helper()
	btn := slack.NewButtonBlockElement("open", "v", slack.NewTextBlockObject("plain_text", "Open", false, false))
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("q", false), slack.MsgOptionBlocks(slack.NewActionBlock("b", btn)))
	if err != nil {
		t.Fatal(err)
	}
	return srv.BlockActions(user, "C1", ts, "open", "b", "")["trigger_id"].(string)
}

func TestTriggerExpiry(t *testing.T) {
	clock := NewManualClock(time.Unix(1700000000, 0))
	srv := New(t, WithClock(clock), FailOnReject("expired_trigger_id", "exchanged_trigger_id", "invalid_trigger_id"))
	api := newAPI(srv)

	trig := triggerFor(t, srv, api, "U1")
	clock.Advance(3 * time.Second) // still valid at exactly 3 s
	if _, err := api.OpenView(trig, modal("First")); err != nil {
		t.Fatal(err)
	}
	if _, err := api.OpenView(trig, modal("Again")); slackErr(t, err) != "exchanged_trigger_id" {
		t.Fatalf("reused trigger: %v", err)
	}
	trig = triggerFor(t, srv, api, "U1")
	clock.Advance(3*time.Second + time.Millisecond)
	if _, err := api.OpenView(trig, modal("Late")); slackErr(t, err) != "expired_trigger_id" {
		t.Fatalf("late trigger: %v", err)
	}
	if _, err := api.OpenView("12345.98765.abcd2358fdea", modal("Made up")); slackErr(t, err) != "invalid_trigger_id" {
		t.Fatalf("made-up trigger: %v", err)
	}
	if v, ok := srv.LastView(); !ok || v.Title != "First" || v.User != "U1" || len(srv.OpenedViews()) != 1 {
		t.Fatalf("last view %+v, %d opened", v, len(srv.OpenedViews()))
	}
}

func TestViewLimitsAndUpdate(t *testing.T) {
	srv := New(t, FailOnReject("invalid_arguments", "hash_conflict", "not_found"))
	api := newAPI(srv)

	_, err := api.OpenView(triggerFor(t, srv, api, "U1"), modal(strings.Repeat("t", 25)))
	if slackErr(t, err) != "invalid_arguments" {
		t.Fatalf("25-char title: %v", err)
	}
	rej := srv.Rejections()
	if len(rej) != 1 || !strings.Contains(rej[0].Messages[0], "/view/title/text") {
		t.Fatalf("rejections %v", rej)
	}
	trig := triggerFor(t, srv, api, "U1")
	resp, err := api.OpenView(trig, modal("Question"))
	if err != nil {
		t.Fatalf("a rejected views.open must not use up the trigger: %v", err)
	}
	if _, err := api.UpdateView(modal("Changed"), "", "stale.hash", resp.View.ID); slackErr(t, err) != "hash_conflict" {
		t.Fatalf("stale hash: %v", err)
	}
	if _, err := api.UpdateView(modal("Changed"), "", resp.View.Hash, resp.View.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := api.UpdateView(modal("Changed"), "", "", "V0NOPE"); slackErr(t, err) != "not_found" {
		t.Fatalf("unknown view: %v", err)
	}
	if v, _ := srv.LastView(); v.Title != "Changed" || v.Updates != 1 || v.Hash == resp.View.Hash {
		t.Fatalf("view after update: %+v", v)
	}
}

func TestHomeTab(t *testing.T) {
	srv := New(t, FailOnReject("invalid_arguments"))
	api := newAPI(srv)
	btn := slack.NewButtonBlockElement("refresh", "r", slack.NewTextBlockObject("plain_text", "Refresh", false, false))
	home := slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewActionBlock("home", btn)}}}
	if _, err := api.PublishView("U1", home, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := api.PublishView("U1", home, ""); err != nil {
		t.Fatal(err)
	}
	v, ok := srv.HomeView("U1")
	if !ok || v.Type != "home" || v.Updates != 1 {
		t.Fatalf("home view %+v", v)
	}
	if ev := srv.AppHomeOpened("U1").Event(); ev["view"].(map[string]any)["id"] != v.ID {
		t.Errorf("app_home_opened carries view %v, want %s", ev["view"], v.ID)
	}
	p := srv.ViewBlockActions("U1", v.ID, "refresh", "home", "")
	if p["container"].(map[string]any)["type"] != "view" || p["trigger_id"] == "" {
		t.Errorf("payload %s", p.JSON())
	}
	// views.publish without user_id; slack-go refuses to send it, so post JSON directly.
	req, _ := http.NewRequest("POST", srv.APIURL()+"views.publish", strings.NewReader(`{"view":{"type":"home","blocks":[]}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+srv.BotToken())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if c := srv.Calls("views.publish")[2]; c.Error != "invalid_arguments" {
		t.Errorf("views.publish without user_id: %+v", c)
	}
}

func TestViewSubmissionState(t *testing.T) {
	tb := &errorfTB{TB: t, errs: make(chan string, 10)}
	srv := New(tb)
	api := newAPI(srv)
	pick := slack.NewOptionsSelectBlockElement("static_select", nil, "level",
		slack.NewOptionBlockObject("hi", slack.NewTextBlockObject("plain_text", "High", false, false), nil))
	note := slack.NewInputBlock("note", slack.NewTextBlockObject("plain_text", "Note", false, false), nil,
		slack.NewPlainTextInputBlockElement(nil, "text"))
	note.Optional = true
	view := slack.ModalViewRequest{
		Type:   slack.VTModal,
		Title:  slack.NewTextBlockObject("plain_text", "Answer", false, false),
		Submit: slack.NewTextBlockObject("plain_text", "Send", false, false),
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewInputBlock("sev", slack.NewTextBlockObject("plain_text", "Severity", false, false), nil, pick),
			note,
		}},
	}
	if _, err := api.OpenView(triggerFor(t, srv, api, "U1"), view); err != nil {
		t.Fatal(err)
	}
	opened, _ := srv.LastView()
	p := srv.ViewSubmission("U1", opened, map[string]map[string]string{"sev": {"level": "hi"}})
	values := p["view"].(map[string]any)["state"].(map[string]any)["values"].(map[string]any)
	sev := values["sev"].(map[string]any)["level"].(map[string]any)
	if sev["type"] != "static_select" || sev["selected_option"].(map[string]any)["value"] != "hi" {
		t.Errorf("severity state %v", sev)
	}
	if txt := values["note"].(map[string]any)["text"].(map[string]any); txt["type"] != "plain_text_input" || txt["value"] != nil {
		t.Errorf("empty optional input state %v", txt)
	}
	if len(tb.errs) != 0 {
		t.Fatalf("unexpected errors: %v", <-tb.errs)
	}
	srv.ViewSubmission("U1", opened, map[string]map[string]string{"note": {"text": "x"}})               // required sev empty
	srv.ViewSubmission("U1", opened, map[string]map[string]string{"sev": {"level": "nope"}})            // no such option
	srv.ViewSubmission("U2", opened, map[string]map[string]string{"sev": {"level": "hi"}})              // someone else's modal
	srv.ViewSubmission("U1", opened, map[string]map[string]string{"sev": {"lvl": "hi", "level": "hi"}}) // unknown input
	if n := len(tb.errs); n != 4 {
		t.Fatalf("%d errors reported, want 4", n)
	}
}
