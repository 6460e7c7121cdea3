package slack

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/observe"
	goslack "github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDedup(t *testing.T) {
	tb := newTestBot(t, &fakeAPI{}, access.Access{}, nil)
	ctx := context.Background()
	assert.True(t, tb.first(ctx, "env:1", "evt:1"), "first delivery is applied")
	assert.False(t, tb.first(ctx, "env:1"), "a redelivered envelope is not")
	assert.False(t, tb.first(ctx, "env:2", "evt:1"), "the same event in a new envelope is not")
	assert.True(t, tb.first(ctx, "env:3", ""), "empty ids are ignored")
	tb.clock.Add(hitl.EnvelopeWindow + time.Second)
	assert.True(t, tb.first(ctx, "env:1"), "after the window it is new again")
	t.Run("a store that does not answer lets the envelope through", func(t *testing.T) {
		tb.cfg.Envelopes = failingEnvelopes{}
		assert.True(t, tb.first(ctx, "env:1"))
		assert.True(t, tb.first(ctx, "env:1"))
	})
}

// failingEnvelopes is a store that cannot record envelopes.
type failingEnvelopes struct{}

func (failingEnvelopes) SeeEnvelope(context.Context, time.Time, time.Duration, ...string) (bool, error) {
	return false, fault.Errorf(fault.EUNAVAILABLE, "the database is unavailable")
}

func TestUnescape(t *testing.T) {
	assert.Equal(t, "a < b && c > d", unescape("  a &lt; b &amp;&amp; c &gt; d "))
	assert.Equal(t, "&lt;", unescape("&amp;lt;"), "one level only")
}

func TestTransient(t *testing.T) {
	for name, tc := range map[string]struct {
		err  error
		want bool
	}{
		"503":                {goslack.StatusCodeError{Code: 503}, true},
		"429 without header": {goslack.StatusCodeError{Code: 429}, true},
		"404":                {goslack.StatusCodeError{Code: 404}, false},
		"connection refused": {&url.Error{Op: "Post", URL: "x", Err: &net.OpError{Op: "dial", Err: errors.New("refused")}}, true},
		"internal_error":     {goslack.SlackErrorResponse{Err: "internal_error"}, true},
		"channel_not_found":  {goslack.SlackErrorResponse{Err: "channel_not_found"}, false},
		"invalid_blocks":     {goslack.SlackErrorResponse{Err: "invalid_blocks"}, false},
		"store write failed": {errStoreWrite, true},
	} {
		assert.Equal(t, tc.want, transient(tc.err), name)
	}
}

func TestIsUser(t *testing.T) {
	assert.True(t, isUser("U0ALICE"))
	assert.True(t, isUser("W0ENTERPRISE"))
	assert.False(t, isUser("C0HITL"))
	assert.False(t, isUser("#general"))
}

func TestRefusalHint(t *testing.T) {
	assert.Contains(t, refusalHint(goslack.SlackErrorResponse{Err: "not_in_channel"}), "/invite @hitl")
	assert.Contains(t, refusalHint(goslack.SlackErrorResponse{Err: "missing_scope"}), "slack-app-manifest.yaml")
	assert.Empty(t, refusalHint(errors.New("boom")))
}

func TestDeliveriesFor(t *testing.T) {
	b := newBot(Config{DefaultChannel: "C0HITL", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, &fakeAPI{}, Service{}, memstore.NewOutbox())
	q := &hitl.Question{ID: "q_1", Status: hitl.StatusPending, Assignees: []string{"U0BOB", "S0OPS"}}
	for name, tc := range map[string]struct {
		typ  hitl.EventType
		want string
		n    int
	}{
		"an asked question is posted to each assignee and the channel": {hitl.EventQuestionAsked, kindPost, 2},
		"an answer updates every posted message":                       {hitl.EventQuestionAnswered, kindUpdate, 2},
		"a reopened question updates every posted message":             {hitl.EventQuestionReopened, kindUpdate, 2},
		"a refusal changes no message":                                 {hitl.EventRefused, "", 0},
	} {
		t.Run(name, func(t *testing.T) {
			ds, err := b.deliveriesFor(context.Background(), &hitl.Event{Type: tc.typ, QuestionID: q.ID, Question: q})
			require.NoError(t, err)
			require.Len(t, ds, tc.n)
			for _, d := range ds {
				assert.Equal(t, tc.want, d.Kind)
				assert.Equal(t, q.ID, d.QuestionID)
			}
		})
	}
	t.Run("an assigned group becomes one whose members' queues are read", func(t *testing.T) {
		assert.True(t, b.groups.known["S0OPS"])
	})
	t.Run("an alert is posted to the alert channel, only when one is set", func(t *testing.T) {
		ev := &hitl.Event{Seq: 42, Type: hitl.EventAlert, Alert: &hitl.Alert{Name: observe.AlertCreationErrors, State: hitl.AlertStarted}}
		ds, err := b.deliveriesFor(context.Background(), ev)
		require.NoError(t, err)
		assert.Empty(t, ds, "no alert channel")
		b.cfg.AlertsChannel = "C0ALERTS"
		defer func() { b.cfg.AlertsChannel = "" }()
		ds, err = b.deliveriesFor(context.Background(), ev)
		require.NoError(t, err)
		assert.Equal(t, []hitl.Delivery{{Kind: kindAlert, QuestionID: "alert:42", Target: "C0ALERTS", Event: 42}}, ds,
			"it names its event, as every delivery of one does: replicas that projected it enqueue it once")
	})
}

func TestTargets(t *testing.T) {
	for name, tc := range map[string]struct {
		q    hitl.Question
		want []string
	}{
		"explicit channel wins":         {hitl.Question{Channel: "C1", Assignees: []string{"U1"}}, []string{"C1"}},
		"assignees get DMs":             {hitl.Question{Assignees: []string{"U1", "W2"}}, []string{"U1", "W2"}},
		"group is mentioned in default": {hitl.Question{Assignees: []string{"S1", "U1"}}, []string{"U1", "CDEF"}},
		"nothing set: default channel":  {hitl.Question{}, []string{"CDEF"}},
	} {
		assert.Equal(t, tc.want, Targets(&tc.q, "CDEF"), name)
	}
	assert.Empty(t, Targets(&hitl.Question{}, ""), "no default channel: nowhere to post")
}
