package webhook_test

import (
	"testing"

	"github.com/hitlbot/hitl/steer"
	"github.com/hitlbot/hitl/webhook"
	"github.com/stretchr/testify/assert"
)

// TestRunEvent is the table of a run's changes of status and the
// webhook events they are.
func TestRunEvent(t *testing.T) {
	rows := []struct {
		from, to steer.RunStatus
		want     webhook.Event
	}{
		{"", steer.RunRunning, ""},
		{steer.RunRunning, steer.RunRunning, ""},
		{steer.RunRunning, steer.RunPaused, webhook.RunPaused},
		{steer.RunPaused, steer.RunPaused, ""},
		{steer.RunPaused, steer.RunRunning, webhook.RunResumed},
		{steer.RunRunning, steer.RunCancelled, webhook.RunCancelled},
		{steer.RunPaused, steer.RunCancelled, webhook.RunCancelled},
		{steer.RunRunning, steer.RunDone, webhook.RunDone},
		{"", steer.RunDone, webhook.RunDone},
		{steer.RunRunning, steer.RunAborted, webhook.RunAborted},
		{steer.RunDone, steer.RunDone, ""},
	}
	for _, r := range rows {
		t.Run(string(r.from)+" to "+string(r.to), func(t *testing.T) {
			assert.Equal(t, r.want, webhook.RunEvent(r.from, r.to))
		})
	}
}

// TestRouteWants is the table of what an endpoint subscribes to.
func TestRouteWants(t *testing.T) {
	e := webhook.Route{Name: "ci", Events: []webhook.Event{webhook.QuestionAnswered}, Runs: "ci-*"}
	all := webhook.Route{Name: "all", Events: webhook.Events}
	rows := []struct {
		name string
		e    webhook.Route
		typ  webhook.Event
		run  string
		want bool
	}{
		{"its event, a matching run", e, webhook.QuestionAnswered, "ci-42", true},
		{"its event, another run", e, webhook.QuestionAnswered, "deploy-1", false},
		{"the glob is whole: a prefix is not a match", e, webhook.QuestionAnswered, "xci-42", false},
		{"another event", e, webhook.QuestionTimedOut, "ci-42", false},
		{"no runs: every run", all, webhook.RunDone, "anything", true},
		{"a ping is no subscription", all, webhook.Ping, "anything", false},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) { assert.Equal(t, r.want, r.e.Wants(r.typ, r.run)) })
	}
}
