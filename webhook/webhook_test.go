package webhook_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
)

// TestRunEvent is the table of a run's changes of status and the
// webhook events they are.
func TestRunEvent(t *testing.T) {
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
			assert.Equal(t, r.want, hitl.WebhookRunEvent(r.from, r.to))
		})
	}
}

// TestRouteWants is the table of what an endpoint subscribes to.
func TestRouteWants(t *testing.T) {
	e := hitl.WebhookRoute{Name: "ci", Events: []hitl.WebhookEvent{hitl.WebhookQuestionAnswered}, Runs: "ci-*"}
	all := hitl.WebhookRoute{Name: "all", Events: hitl.WebhookEvents}
	rows := []struct {
		name string
		e    hitl.WebhookRoute
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

// TestCallbackTarget is the table of callbackUrl spellings that are one
// receiver (one target for the per-target cap and one queue), and of
// those that are not.
func TestCallbackTarget(t *testing.T) {
	rows := []struct {
		name, url, want string
	}{
		{"plain", "http://localhost/x", "http://localhost"},
		{"upper-case host", "http://LOCALHOST/x", "http://localhost"},
		{"mixed-case host", "http://LocalHost/x", "http://localhost"},
		{"default http port elided", "http://localhost:80/y", "http://localhost"},
		{"default port with leading zero", "http://localhost:080/y", "http://localhost"},
		{"trailing dot", "http://localhost./z", "http://localhost"},
		{"all at once", "HTTP://LOCALHOST.:80/", "http://localhost"},
		{"default https port elided", "https://Agent.Example:443/cb", "https://agent.example"},
		{"another port is another target", "http://localhost:8080/", "http://localhost:8080"},
		{"https on port 80 keeps it", "https://localhost:80/", "https://localhost:80"},
		{"another scheme is another target", "https://localhost/", "https://localhost"},
		{"IPv6 literal in brackets", "http://[::1]/", "http://[::1]"},
		{"IPv6 literal, long form", "http://[0:0:0:0:0:0:0:1]:80/", "http://[::1]"},
		{"IPv6 literal, upper case", "http://[FE80::A]:9000/", "http://[fe80::a]:9000"},
		{"IPv4-mapped IPv6 is its IPv4", "http://[::ffff:127.0.0.1]:9000/", "http://127.0.0.1:9000"},
		{"IPv4 literal", "http://127.0.0.1:9000/", "http://127.0.0.1:9000"},
		{"user info and query ignored", "http://u:p@localhost/?a=1", "http://localhost"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			assert.Equal(t, r.want, hitl.CallbackOrigin(r.url))
			d := hitl.WebhookDelivery{URL: r.url}
			assert.Equal(t, "callback:"+r.want, d.Target())
			assert.True(t, hitl.IsCallbackTarget(d.Target()))
		})
	}
	ep := hitl.WebhookDelivery{Endpoint: "ops", URL: "http://LOCALHOST/"}
	assert.Equal(t, "ops", ep.Target(), "an endpoint's target is its name")
	assert.False(t, hitl.IsCallbackTarget(ep.Target()))
}
