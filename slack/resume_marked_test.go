package slack

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/steer"
	goslack "github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResumedRunAndAlertPostsAreNotPostedTwice: a process posts a run's
// first live message (an alert) and dies before recording it. The process
// that takes the target over is handed the delivery Resumed, finds the
// message by its metadata among the channel's messages and records it (a
// live message brought up to date in place) instead of posting it again.
func TestResumedRunAndAlertPostsAreNotPostedTwice(t *testing.T) {
	const runs, alerts = "C0RUNS", "C0ALERTS"
	for name, tc := range map[string]struct {
		channel string
		cause   func(t *testing.T, tb *testBot) // makes the event the post comes from
		// record reads from the outbox whether the delivery is done.
		record func(t *testing.T, outbox hitl.Outbox) (ts string, done bool)
	}{
		"a run's live message": {
			channel: runs,
			cause: func(t *testing.T, tb *testBot) {
				_, err := tb.svc.Runs.Checkpoint(auth.WithPrincipal(context.Background(), agentP),
					steer.StateEvent{RunID: "run-1", Stack: []steer.StackEntry{{ID: "run-1", Iter: 1}}})
				require.NoError(t, err)
			},
			record: func(t *testing.T, outbox hitl.Outbox) (string, bool) {
				refs, err := outbox.Delivered(context.Background(), runKey("run-1"))
				if err != nil || len(refs) == 0 {
					return "", false
				}
				assert.Len(t, refs, 1, "one live message recorded")
				return refs[0].TS, true
			},
		},
		"an alert": {
			channel: alerts,
			cause: func(t *testing.T, tb *testBot) {
				_, _, err := tb.svc.Questions.Create(auth.WithPrincipal(context.Background(), agentP), "run-1", hitl.NewQuestion{})
				require.Equal(t, fault.EINVALID, fault.Code(err), "a failed creation starts creation_errors")
				a, err := tb.svc.Observation.NewAlerts(tb.ctx, observe.AlertConfig{Channel: alerts})
				require.NoError(t, err)
				changes, err := a.Check(tb.ctx)
				require.NoError(t, err)
				require.Len(t, changes, 1)
			},
			record: func(t *testing.T, outbox hitl.Outbox) (string, bool) {
				_, err := outbox.NextDelivery(context.Background(), alerts)
				return "", fault.Code(err) == fault.ENOTFOUND // completed without a record
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			srv := slackfake.New(t, slackfake.FailOnReject())
			api := goslack.New(srv.BotToken(), goslack.OptionAPIURL(srv.APIURL()))
			shared := memstore.NewOutbox()
			dying := &unrecordedOutbox{Outbox: shared, tried: make(chan struct{}, 1)}
			tb := newTestBot(t, api, access.Access{}, dying)
			tb.cfg.RunsChannel, tb.cfg.AlertsChannel = runs, alerts
			tb.identity.set(slackfake.BotUserID, slackfake.BotID, slackfake.TeamID)
			calls, die := context.WithCancel(tb.ctx)
			tb.calls = calls
			tc.cause(t, tb)

			stop := tb.runOutbox(t)
			first, err := srv.WaitForMessage(ctx, tc.channel, nil)
			require.NoError(t, err, "the first process posts")
			await(t, dying.tried, "the first process to try recording its post")
			die()
			stop()

			next := tb.successor(t, api, &takeoverOutbox{Outbox: shared, handed: map[string]bool{}})
			next.identity.set(slackfake.BotUserID, slackfake.BotID, slackfake.TeamID)
			stop = next.runOutbox(t)
			defer stop()
			var ts string
			require.Eventually(t, func() bool {
				var done bool
				ts, done = tc.record(t, shared)
				return done
			}, 10*time.Second, time.Millisecond, "the successor completes the delivery")

			assert.Equal(t, 1, len(srv.Messages(tc.channel)), "one message in the channel")
			assert.Equal(t, 1, len(srv.Calls("chat.postMessage")), "posted once, by the first process")
			assert.NotEmpty(t, srv.Calls("conversations.history"), "the successor looked before posting")
			if tc.channel == runs {
				assert.Equal(t, first.TS, ts, "the first process's message is the run's live message")
				updates := 0
				for _, c := range srv.Calls("chat.update") {
					if c.OK && c.Params.Get("ts") == first.TS {
						updates++
					}
				}
				assert.Positive(t, updates, "the live message found is brought up to date in place")
			}
		})
	}
}

// TestPostMarks: a mark matches only the message it names.
func TestPostMarks(t *testing.T) {
	md := func(m postMark) goslack.SlackMetadata {
		return goslack.SlackMetadata{EventType: m.eventType, EventPayload: m.payload}
	}
	for name, tc := range map[string]struct {
		mark postMark
		on   goslack.SlackMetadata
		want bool
	}{
		"a question's message to its target":       {questionMark("q1", "C1"), md(questionMark("q1", "C1")), true},
		"the question's message to another target": {questionMark("q1", "C1"), md(questionMark("q1", "U1")), false},
		"another question's message":               {questionMark("q1", "C1"), md(questionMark("q2", "C1")), false},
		"a run's live message":                     {runMark("run-1"), md(runMark("run-1")), true},
		"another run's live message":               {runMark("run-1"), md(runMark("run-2")), false},
		"an alert's post":                          {alertMark(7), md(alertMark(7)), true},
		"another alert's post":                     {alertMark(7), md(alertMark(8)), false},
		"a question whose id is a run's":           {runMark("q1"), goslack.SlackMetadata{EventType: questionEventType, EventPayload: map[string]any{"run_id": "q1"}}, false},
		"a message without metadata":               {alertMark(7), goslack.SlackMetadata{}, false},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.mark.on(tc.on))
		})
	}
}

// successor is another process over tb's service, with outbox: a replica
// that takes tb's targets over.
func (tb *testBot) successor(t testing.TB, api slackAPI, outbox hitl.Outbox) *testBot {
	t.Helper()
	b := newBot(tb.cfg, api, serviceOf(tb.svc), outbox)
	b.calls = tb.ctx
	return &testBot{Bot: b, svc: tb.svc, outbox: outbox, clock: tb.clock, ctx: tb.ctx}
}

// unrecordedOutbox never records: the process is killed between Slack's
// taking a post and its record. tried is signalled at the first attempt.
type unrecordedOutbox struct {
	hitl.Outbox
	tried chan struct{}
}

func (o *unrecordedOutbox) Complete(context.Context, hitl.Delivery, *hitl.Delivered) error {
	select {
	case o.tried <- struct{}{}:
	default:
	}
	return errors.New("the process is being killed")
}

// takeoverOutbox hands each target's first delivery out Resumed, as the
// PostgreSQL outbox does after a dead replica's claim lapsed (and bbolt's
// after a restart).
type takeoverOutbox struct {
	hitl.Outbox
	mu     sync.Mutex
	handed map[string]bool
}

func (o *takeoverOutbox) NextDelivery(ctx context.Context, target string) (hitl.Delivery, error) {
	d, err := o.Outbox.NextDelivery(ctx, target)
	if err == nil {
		o.mu.Lock()
		d.Resumed = !o.handed[target]
		o.handed[target] = true
		o.mu.Unlock()
	}
	return d, err
}

// TestResumedDeliveryIsLookedForAfterAnEarlierFailure: a delivery handed
// over Resumed whose first try fails before the look (Slack down when the
// direct message is opened) is looked for at the next try too, which the
// outbox hands out no longer Resumed.
func TestResumedDeliveryIsLookedForAfterAnEarlierFailure(t *testing.T) {
	var qid string
	opens := 0
	api := &fakeAPI{
		OpenConversation: func(context.Context, []string) (string, error) {
			if opens++; opens == 1 {
				return "", goslack.StatusCodeError{Code: 503, Status: "503 Service Unavailable"}
			}
			return "D0ALICE", nil
		},
		History: func(context.Context, string, string) ([]goslack.Message, error) {
			m := goslack.Message{}
			m.Timestamp, m.User, m.BotID = "1700000000.000100", "U0BOT", "B0BOT"
			m.Metadata = goslack.SlackMetadata{EventType: questionEventType, EventPayload: map[string]any{"question_id": qid, "target": "U0ALICE"}}
			return []goslack.Message{m}, nil
		},
	}
	tb := newTestBot(t, api, access.Access{}, nil)
	tb.identity.set("U0BOT", "B0BOT", testTeam)
	qid = tb.ask(t, agentP, hitl.NewQuestion{Question: "Deploy?"}).ID
	d := hitl.Delivery{Seq: 3, Kind: kindPost, QuestionID: qid, Target: "U0ALICE", Resumed: true}
	require.Error(t, tb.do(tb.ctx, d), "Slack is down")
	d.Resumed = false
	require.NoError(t, tb.do(tb.ctx, d))
	assert.Equal(t, 1, api.Calls("conversations.history"), "looked for at the second try")
	assert.Zero(t, api.Calls("chat.postMessage"), "found, not posted again")
	refs, err := tb.outbox.Delivered(tb.ctx, qid)
	require.NoError(t, err)
	require.Len(t, refs, 1)
	assert.Equal(t, "D0ALICE", refs[0].Channel)
	assert.Equal(t, "1700000000.000100", refs[0].TS)
	assert.False(t, tb.resuming(d), "forgotten once completed")
}
