package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const alertChannel = "C0ALERTS"

// TestSlackAlertsPostedOnceEach: an alert is posted to alerts.channel
// when it starts and when it clears, once each, however often the
// sweeper (every second, real time) and the test check; a failed Slack
// call on the way is counted in hitl_slack_api_errors_total.
func TestSlackAlertsPostedOnceEach(t *testing.T) {
	clock := clocktest.New(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	srv := slackfake.New(t, slackfake.FailOnReject())
	e := slackEnvOn(t, srv, 30*time.Second, withClock(clock), func(c *config.Config, _ *Main) { c.Alerts.Channel = alertChannel })
	ctx := e.ctx
	check := func() []hitl.Alert {
		t.Helper()
		changes, err := e.m.obs.alerts.Check(ctx)
		require.NoError(t, err)
		return changes
	}
	waitPost := func(want string) slackfake.Message {
		t.Helper()
		msg, err := srv.WaitForMessage(ctx, alertChannel, func(m slackfake.Message) bool { return strings.Contains(m.Text, want) })
		require.NoError(t, err, "no %q in %s", want, alertChannel)
		return msg
	}

	srv.FailNext("chat.postMessage", 1, 500, 0) // the first post fails once and is retried
	_, _, err := e.m.Service.Questions.Create(auth.WithPrincipal(context.Background(), auth.LocalPrincipal("agent")), "run-1", hitl.NewQuestion{})
	require.Equal(t, fault.EINVALID, fault.Code(err))
	check()
	started := waitPost("hitl alert creation_errors started")
	assert.Contains(t, started.Text, "1 question creations failed in the last hour")
	assert.Empty(t, check(), "still holding: nothing to post")

	clock.Add(61 * time.Minute)
	check()
	waitPost("hitl alert creation_errors cleared")
	assert.Empty(t, check())
	// Deliveries to one channel go in order and the last check changed
	// nothing: the clear is the last post there.
	var texts []string
	for _, m := range srv.Messages(alertChannel) {
		texts = append(texts, m.Text[:strings.Index(m.Text, ":")])
	}
	assert.Equal(t, []string{"hitl alert creation_errors started", "hitl alert creation_errors cleared"}, texts, "once each")

	require.NoError(t, e.m.obs.metrics.Sync(ctx))
	status, body := get(t, e.m.URL()+"/metrics", "")
	require.Equal(t, 200, status)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	require.NoError(t, err)
	found := false
	for _, s := range fams["hitl_slack_api_errors_total"].GetMetric() {
		labels := map[string]string{}
		for _, l := range s.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["method"] == "chat.postMessage" && labels["error"] == "http_500" {
			found = s.GetCounter().GetValue() == 1
		}
	}
	assert.True(t, found, "the failed post is counted:\n%s", body)
}

// TestOutboxDepthWhileSlackIsDown: questions asked while Slack is down
// wait in the outbox, and hitl_outbox_depth says how many.
func TestOutboxDepthWhileSlackIsDown(t *testing.T) {
	srv := slackfake.New(t)
	e := slackEnvOn(t, srv, 30*time.Second)
	srv.SetDown(true)
	for range 3 {
		e.ask(t, "run-down", hitl.NewQuestion{Question: "Ship it?"})
	}
	depth := func() float64 {
		status, body := get(t, e.m.URL()+"/metrics", "")
		require.Equal(t, 200, status)
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(strings.NewReader(body))
		require.NoError(t, err)
		return fams["hitl_outbox_depth"].GetMetric()[0].GetGauge().GetValue()
	}
	assert.Eventually(t, func() bool { return depth() == 3 }, 10*time.Second, 5*time.Millisecond, "three posts queued")
	srv.SetDown(false)
	assert.Eventually(t, func() bool { return depth() == 0 }, 10*time.Second, 5*time.Millisecond, "posted once Slack is back")
}
