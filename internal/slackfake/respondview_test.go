package slackfake

import (
	"strings"
	"testing"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
)

// TestResponseActionUpdate: a view_submission acked with response_action
// "update" replaces the modal, checked against Slack's view limits.
func TestResponseActionUpdate(t *testing.T) {
	title := func(s string) *slack.TextBlockObject { return slack.NewTextBlockObject("plain_text", s, false, false) }
	modal := func(titleText string) slack.ModalViewRequest {
		return slack.ModalViewRequest{Type: slack.VTModal, Title: title(titleText), Submit: title("Send"), CallbackID: "batch",
			Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewInputBlock("reason", title("Why?"), nil, slack.NewPlainTextInputBlockElement(nil, "v"))}}}
	}
	next := make(chan slack.ModalViewRequest, 1)
	srv := New(t)
	h := startClient(t, srv, func(evt socketmode.Event) (any, bool) {
		if cb, ok := evt.Data.(slack.InteractionCallback); ok && cb.Type == slack.InteractionTypeViewSubmission {
			v := <-next
			return slack.NewUpdateViewSubmissionResponse(&v), true
		}
		return nil, true
	})
	ctx := testCtx(t)
	srv.mu.Lock()
	trigger := srv.issueTriggerLocked("U0ALICE")
	srv.mu.Unlock()
	if _, err := h.api.OpenView(trigger, modal("First page")); err != nil {
		t.Fatal(err)
	}
	view, _ := srv.LastView()

	next <- modal("Second page")
	if _, err := srv.SendInteractive(ctx, srv.ViewSubmission("U0ALICE", view, map[string]map[string]string{"reason": {"v": "x"}})); err != nil {
		t.Fatal(err)
	}
	got, _ := srv.LastView()
	if got.ID != view.ID || got.Title != "Second page" || got.Updates != 1 {
		t.Fatalf("the update did not replace the modal: %+v", got)
	}

	next <- modal(strings.Repeat("t", 25)) // over the 24-character title
	if _, err := srv.SendInteractive(ctx, srv.ViewSubmission("U0ALICE", got, map[string]map[string]string{"reason": {"v": "x"}})); err != nil {
		t.Fatal(err)
	}
	rs := srv.Rejections()
	if len(rs) != 1 || rs[0].Method != "view_submission.response_action" || !strings.Contains(strings.Join(rs[0].Messages, " "), "/view/title") {
		t.Fatalf("rejections = %+v", rs)
	}
	if after, _ := srv.LastView(); after.Title != "Second page" {
		t.Errorf("a rejected update changed the modal: %+v", after)
	}
}
