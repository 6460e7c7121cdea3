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
			assert.Equal(t, r.want, webhook.CallbackOrigin(r.url))
			d := webhook.Delivery{URL: r.url}
			assert.Equal(t, "callback:"+r.want, d.Target())
			assert.True(t, webhook.IsCallback(d.Target()))
		})
	}
	ep := webhook.Delivery{Endpoint: "ops", URL: "http://LOCALHOST/"}
	assert.Equal(t, "ops", ep.Target(), "an endpoint's target is its name")
	assert.False(t, webhook.IsCallback(ep.Target()))
}
