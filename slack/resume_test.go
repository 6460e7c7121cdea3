package slack

import (
	"context"
	"net/url"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	goslack "github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResumedPostIsLookedForFirst(t *testing.T) {
	posted := func(qid, target, user, botID string) goslack.Message {
		m := goslack.Message{}
		m.Timestamp, m.User, m.BotID = "1700000000.000100", user, botID
		m.Metadata = goslack.SlackMetadata{EventType: questionEventType, EventPayload: map[string]any{"question_id": qid, "target": target}}
		return m
	}
	for name, tc := range map[string]struct {
		resumed    bool
		history    func(qid string) []goslack.Message
		historyErr error
		posts      int
		failed     bool // the delivery is tried again later
	}{
		"a resumed delivery Slack will not look for (no history scope) is posted": {
			resumed: true, history: func(string) []goslack.Message { return nil }, historyErr: goslack.SlackErrorResponse{Err: "missing_scope"}, posts: 1},
		"a resumed delivery is not posted while Slack cannot look": {
			resumed: true, history: func(string) []goslack.Message { return nil }, historyErr: goslack.StatusCodeError{Code: 503, Status: "503"}, posts: 0, failed: true},
		"a resumed delivery the dead replica posted is recorded, not posted again": {
			resumed: true, history: func(qid string) []goslack.Message { return []goslack.Message{posted(qid, "C0HITL", "U0BOT", "B0BOT")} }, posts: 0},
		"a resumed delivery nobody posted is posted": {
			resumed: true, history: func(string) []goslack.Message { return nil }, posts: 1},
		"another question's message does not count": {
			resumed: true, history: func(string) []goslack.Message {
				return []goslack.Message{posted("q_other", "C0HITL", "U0BOT", "B0BOT")}
			}, posts: 1},
		"another target's message does not count": {
			resumed: true, history: func(qid string) []goslack.Message { return []goslack.Message{posted(qid, "U0ALICE", "U0BOT", "B0BOT")} }, posts: 1},
		"someone else's message with the same metadata does not count": {
			resumed: true, history: func(qid string) []goslack.Message { return []goslack.Message{posted(qid, "C0HITL", "U0EVE", "")} }, posts: 1},
		"a delivery not resumed is posted without a look": {
			resumed: false, history: func(qid string) []goslack.Message { return []goslack.Message{posted(qid, "C0HITL", "U0BOT", "B0BOT")} }, posts: 1},
	} {
		t.Run(name, func(t *testing.T) {
			var qid string
			api := &fakeAPI{
				History: func(context.Context, string, string) ([]goslack.Message, error) {
					return tc.history(qid), tc.historyErr
				},
				PostMessage: func(context.Context, string, url.Values) (string, string, error) {
					return "C0HITL", "1700000000.000200", nil
				},
			}
			tb := newTestBot(t, api, access.Access{}, nil)
			tb.identity.set("U0BOT", "B0BOT", testTeam)
			q := tb.ask(t, agentP, hitl.NewQuestion{Question: "Deploy?"})
			qid = q.ID
			d := hitl.Delivery{Seq: 7, Kind: kindPost, QuestionID: q.ID, Target: "C0HITL", Resumed: tc.resumed}
			err := tb.do(tb.ctx, d)
			assert.Equal(t, tc.posts, api.Calls("chat.postMessage"))
			if tc.failed {
				require.Error(t, err)
				assert.True(t, tb.resuming(hitl.Delivery{Seq: d.Seq}), "looked for again at the next try, though no longer handed over")
				return
			}
			require.NoError(t, err)
			if !tc.resumed {
				assert.Zero(t, api.Calls("conversations.history"), "no look without a takeover")
			}
			refs, err := tb.outbox.Delivered(tb.ctx, q.ID)
			require.NoError(t, err)
			require.Len(t, refs, 1, "the message is recorded once")
			if tc.posts == 0 {
				assert.Equal(t, "1700000000.000100", refs[0].TS, "the dead replica's message is the question's")
			}
		})
	}
}
