package hitl_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
)

// TestRunWebhook is the table of a run's changes of status and the
// webhook events they are.
func TestRunWebhook(t *testing.T) {
	rows := []struct {
		from, to steer.RunStatus
		want     hitl.WebhookEvent
	}{
		{"", steer.RunRunning, ""},
		{steer.RunRunning, steer.RunRunning, ""},
		{steer.RunRunning, steer.RunPaused, hitl.WebhookRunPaused},
		{steer.RunPaused, steer.RunPaused, ""},
		{steer.RunPaused, steer.RunRunning, hitl.WebhookRunResumed},
		{steer.RunRunning, steer.RunCancelled, hitl.WebhookRunCancelled},
		{steer.RunPaused, steer.RunCancelled, hitl.WebhookRunCancelled},
		{steer.RunRunning, steer.RunDone, hitl.WebhookRunDone},
		{"", steer.RunDone, hitl.WebhookRunDone},
		{steer.RunRunning, steer.RunAborted, hitl.WebhookRunAborted},
		{steer.RunDone, steer.RunDone, ""},
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
