package slack

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/slackfake"
	goslack "github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPostIsRecordedNotRepeated(t *testing.T) {
	srv := slackfake.New(t, slackfake.FailOnReject())
	api := goslack.New(srv.BotToken(), goslack.OptionAPIURL(srv.APIURL()))
	outbox := newFlakyOutbox(3) // the store refuses the first three records
	tb := newTestBot(t, api, access.Access{}, outbox)
	q := tb.ask(t, agentP, hitl.NewQuestion{Question: "Merge the release branch?", ResponseType: hitl.BooleanResponse})
	stop := tb.runOutbox(t)
	defer stop()

	d := await(t, outbox.completed, "the post to be recorded")
	assert.Equal(t, q.ID, d.QuestionID)
	t.Run("slack saw exactly one post", func(t *testing.T) {
		assert.Len(t, srv.Calls("chat.postMessage"), 1)
		assert.Len(t, srv.Messages("C0HITL"), 1)
	})
	t.Run("the record names the message slack accepted", func(t *testing.T) {
		msg := srv.Messages("C0HITL")[0]
		rec, err := outbox.DeliveredAt(tb.ctx, msg.Channel, msg.TS)
		require.NoError(t, err)
		assert.Equal(t, q.ID, rec.QuestionID)
		_, err = outbox.NextDelivery(tb.ctx, "C0HITL")
		assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "the delivery left the queue")
	})
}

func TestDeliveryOutcomes(t *testing.T) {
	t.Run("a message slack refuses for good is dropped after one try", func(t *testing.T) {
		api := &fakeAPI{PostMessage: func(context.Context, string, url.Values) (string, string, error) {
			return "", "", goslack.SlackErrorResponse{Err: "channel_not_found"}
		}}
		tb := newTestBot(t, api, access.Access{}, newFlakyOutbox(0))
		tb.ask(t, agentP, hitl.NewQuestion{Question: "Rotate the keys?"})
		stop := tb.runOutbox(t)
		defer stop()
		await(t, tb.outbox.(*flakyOutbox).completed, "the delivery to be dropped")
		assert.Equal(t, 1, api.Calls("chat.postMessage"))
		_, err := tb.outbox.DeliveredAt(tb.ctx, "C0HITL", "1700000000.000100")
		assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "nothing recorded")
	})
	t.Run("a rate-limited post is posted again after Retry-After", func(t *testing.T) {
		limited := true
		api := &fakeAPI{PostMessage: func(_ context.Context, ch string, _ url.Values) (string, string, error) {
			if limited {
				limited = false
				return "", "", &goslack.RateLimitedError{RetryAfter: time.Millisecond}
			}
			return ch, "1700000000.000300", nil
		}}
		tb := newTestBot(t, api, access.Access{}, newFlakyOutbox(0))
		tb.ask(t, agentP, hitl.NewQuestion{Question: "Rotate the keys?"})
		stop := tb.runOutbox(t)
		defer stop()
		await(t, tb.outbox.(*flakyOutbox).completed, "the post to be recorded")
		assert.Equal(t, 2, api.Calls("chat.postMessage"))
	})
	t.Run("slack down: posted once it is back", func(t *testing.T) {
		fails := 2
		api := &fakeAPI{PostMessage: func(_ context.Context, ch string, _ url.Values) (string, string, error) {
			if fails > 0 {
				fails--
				return "", "", goslack.StatusCodeError{Code: 503, Status: "503 Service Unavailable"}
			}
			return ch, "1700000000.000400", nil
		}}
		tb := newTestBot(t, api, access.Access{}, newFlakyOutbox(0))
		tb.ask(t, agentP, hitl.NewQuestion{Question: "Rotate the keys?"})
		stop := tb.runOutbox(t)
		defer stop()
		await(t, tb.outbox.(*flakyOutbox).completed, "the post to be recorded")
		assert.Equal(t, 3, api.Calls("chat.postMessage"))
	})
}

func TestWorkersFollowWorkEnqueuedWhileRunning(t *testing.T) {
	tb := newTestBot(t, &fakeAPI{}, access.Access{}, newFlakyOutbox(0))
	completed := tb.outbox.(*flakyOutbox).completed
	stop := tb.runOutbox(t)
	defer stop()
	for i := range 5 {
		tb.ask(t, agentP, hitl.NewQuestion{Question: "Next?"})
		_, err := tb.projectOnce(tb.ctx)
		require.NoError(t, err)
		await(t, completed, "delivery "+string(rune('0'+i)))
	}
	assert.Equal(t, 5, tb.api.(*fakeAPI).Calls("chat.postMessage"), "each question posted once")
}
