package slack

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/hitlbot/hitl/observe"
	goslack "github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAlertRepeatIsNotPosted: two replicas that saw an alert start at the
// same moment both logged it; the alert channel gets one post, and the
// clear after it one more.
func TestAlertRepeatIsNotPosted(t *testing.T) {
	const alerts = "C0ALERTS"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := slackfake.New(t, slackfake.FailOnReject())
	api := goslack.New(srv.BotToken(), goslack.OptionAPIURL(srv.APIURL()))
	tb := newTestBot(t, api, access.Access{}, nil)
	tb.cfg.AlertsChannel = alerts
	for _, state := range []hitl.AlertState{hitl.AlertStarted, hitl.AlertStarted, hitl.AlertCleared} {
		require.NoError(t, tb.st.AppendEvent(ctx, &hitl.Event{Type: hitl.EventAlert, RunID: "#alerts", At: t0, Actor: auth.ActorSystem,
			Alert: &hitl.Alert{Name: observe.AlertCreationErrors, State: state, Message: "creations failed"}}))
	}
	stop := tb.runOutbox(t)
	defer stop()
	require.Eventually(t, func() bool {
		_, err := tb.outbox.NextDelivery(ctx, alerts)
		return fault.Code(err) == fault.ENOTFOUND && len(srv.Messages(alerts)) >= 2
	}, 10*time.Second, time.Millisecond, "the three alert deliveries are done")
	msgs := srv.Messages(alerts)
	require.Len(t, msgs, 2, "the start and the clear, not the repeat")
	assert.Equal(t, 2, len(srv.Calls("chat.postMessage")))
}
