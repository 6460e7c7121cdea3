package hitl_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
)

// TestRunWebhook is the table of a run's changes of status and the
// webhook events they are.
func TestRunWebhook(t *testing.T) {
	rows := []struct {
		from, to hitl.RunStatus
		want     hitl.WebhookEvent
	}{
		{"", hitl.RunRunning, ""},
		{hitl.RunRunning, hitl.RunRunning, ""},
		{hitl.RunRunning, hitl.RunPaused, hitl.WebhookRunPaused},
		{hitl.RunPaused, hitl.RunPaused, ""},
		{hitl.RunPaused, hitl.RunRunning, hitl.WebhookRunResumed},
		{hitl.RunRunning, hitl.RunCancelled, hitl.WebhookRunCancelled},
		{hitl.RunPaused, hitl.RunCancelled, hitl.WebhookRunCancelled},
		{hitl.RunRunning, hitl.RunDone, hitl.WebhookRunDone},
		{"", hitl.RunDone, hitl.WebhookRunDone},
		{hitl.RunRunning, hitl.RunAborted, hitl.WebhookRunAborted},
		{hitl.RunDone, hitl.RunDone, ""},
	}
	for _, r := range rows {
		t.Run(string(r.from)+" to "+string(r.to), func(t *testing.T) {
			assert.Equal(t, r.want, hitl.RunWebhook(r.from, r.to))
		})
	}
}

// TestWebhookEndpointWants is the table of what an endpoint subscribes to.
func TestWebhookEndpointWants(t *testing.T) {
	e := hitl.WebhookEndpoint{Name: "ci", Events: []hitl.WebhookEvent{hitl.WebhookQuestionAnswered}, Runs: "ci-*"}
	all := hitl.WebhookEndpoint{Name: "all", Events: hitl.WebhookEvents}
	rows := []struct {
		name string
		e    hitl.WebhookEndpoint
		typ  hitl.WebhookEvent
		run  string
		want bool
	}{
		{"its event, a matching run", e, hitl.WebhookQuestionAnswered, "ci-42", true},
		{"its event, another run", e, hitl.WebhookQuestionAnswered, "deploy-1", false},
		{"the glob is whole: a prefix is not a match", e, hitl.WebhookQuestionAnswered, "xci-42", false},
		{"another event", e, hitl.WebhookQuestionTimedOut, "ci-42", false},
		{"no runs: every run", all, hitl.WebhookRunDone, "anything", true},
		{"a ping is no subscription", all, hitl.WebhookPing, "anything", false},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) { assert.Equal(t, r.want, r.e.Wants(r.typ, r.run)) })
	}
}
