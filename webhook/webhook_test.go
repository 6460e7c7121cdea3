package webhook_test

import (
	"testing"

	"github.com/hitlbot/hitl/steer"
	"github.com/hitlbot/hitl/webhook"
	"github.com/stretchr/testify/assert"
)

// TestRunWebhook is the table of a run's changes of status and the
// webhook events they are.
func TestRunWebhook(t *testing.T) {
	rows := []struct {
		from, to steer.RunStatus
		want     webhook.WebhookEvent
	}{
		{"", steer.RunRunning, ""},
		{steer.RunRunning, steer.RunRunning, ""},
		{steer.RunRunning, steer.RunPaused, webhook.WebhookRunPaused},
		{steer.RunPaused, steer.RunPaused, ""},
		{steer.RunPaused, steer.RunRunning, webhook.WebhookRunResumed},
		{steer.RunRunning, steer.RunCancelled, webhook.WebhookRunCancelled},
		{steer.RunPaused, steer.RunCancelled, webhook.WebhookRunCancelled},
		{steer.RunRunning, steer.RunDone, webhook.WebhookRunDone},
		{"", steer.RunDone, webhook.WebhookRunDone},
		{steer.RunRunning, steer.RunAborted, webhook.WebhookRunAborted},
		{steer.RunDone, steer.RunDone, ""},
	}
	for _, r := range rows {
		t.Run(string(r.from)+" to "+string(r.to), func(t *testing.T) {
			assert.Equal(t, r.want, webhook.RunWebhook(r.from, r.to))
		})
	}
}

// TestWebhookEndpointWants is the table of what an endpoint subscribes to.
func TestWebhookEndpointWants(t *testing.T) {
	e := webhook.WebhookEndpoint{Name: "ci", Events: []webhook.WebhookEvent{webhook.WebhookQuestionAnswered}, Runs: "ci-*"}
	all := webhook.WebhookEndpoint{Name: "all", Events: webhook.WebhookEvents}
	rows := []struct {
		name string
		e    webhook.WebhookEndpoint
		typ  webhook.WebhookEvent
		run  string
		want bool
	}{
		{"its event, a matching run", e, webhook.WebhookQuestionAnswered, "ci-42", true},
		{"its event, another run", e, webhook.WebhookQuestionAnswered, "deploy-1", false},
		{"the glob is whole: a prefix is not a match", e, webhook.WebhookQuestionAnswered, "xci-42", false},
		{"another event", e, webhook.WebhookQuestionTimedOut, "ci-42", false},
		{"no runs: every run", all, webhook.WebhookRunDone, "anything", true},
		{"a ping is no subscription", all, webhook.WebhookPing, "anything", false},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) { assert.Equal(t, r.want, r.e.Wants(r.typ, r.run)) })
	}
}
