package slack

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/steer"
	goslack "github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHomesCoalesceABurst(t *testing.T) {
	var mu sync.Mutex
	published := map[string]int{}
	api := &fakeAPI{PublishView: func(_ context.Context, req goslack.PublishViewContextRequest) error {
		mu.Lock()
		defer mu.Unlock()
		published[req.UserID]++
		return nil
	}}
	tb := newTestBot(t, api, access.Access{}, nil)
	clock := &manualNow{t0}
	h := tb.homes
	h.now = clock.now
	h.opened(tb.ctx, "U0ALICE")
	h.opened(tb.ctx, "U0BOB")
	require.Equal(t, 2, api.Calls("views.publish"))

	for range 100 {
		h.touched()
	}
	t.Run("nothing is refreshed before the tab may be", func(t *testing.T) {
		users, wait := h.due()
		assert.Empty(t, users)
		assert.Equal(t, time.Minute, wait, "HomeRefresh after the last publish")
	})
	t.Run("then each open tab once", func(t *testing.T) {
		clock.t = clock.t.Add(time.Minute)
		h.touched()
		users, _ := h.due()
		assert.ElementsMatch(t, []string{"U0ALICE", "U0BOB"}, users)
		users, wait := h.due()
		assert.Empty(t, users)
		assert.Zero(t, wait, "nothing stale is left")
	})
	t.Run("a tab not opened for a day is left alone", func(t *testing.T) {
		clock.t = clock.t.Add(homeWatch + time.Hour)
		h.touched()
		users, wait := h.due()
		assert.Empty(t, users)
		assert.Zero(t, wait)
	})
}

func TestQueue(t *testing.T) {
	api := &fakeAPI{GetUserGroupMembers: func(_ context.Context, group string) ([]string, error) {
		return map[string][]string{"S0OPS": {"U0ALICE"}, "S0DBA": {"U0BOB"}}[group], nil
	}}
	tb := newTestBot(t, api, access.Access{}, nil)
	aliceBot := auth.TokenPrincipal("alice-bot", []auth.Scope{auth.ScopeAsk}, "U0ALICE")
	mine := tb.ask(t, agentP, hitl.NewQuestion{Question: "For Alice?", Assignees: []string{"U0ALICE"}})
	ops := tb.ask(t, agentP, hitl.NewQuestion{Question: "For ops?", Assignees: []string{"S0OPS"}})
	tb.ask(t, agentP, hitl.NewQuestion{Question: "For the DBAs?", Assignees: []string{"S0DBA"}})
	tb.ask(t, agentP, hitl.NewQuestion{Question: "For Bob?", Assignees: []string{"U0BOB"}})
	tb.ask(t, aliceBot, hitl.NewQuestion{Question: "Asked by Alice?"})
	open := tb.ask(t, agentP, hitl.NewQuestion{Question: "For anyone?"})
	_, err := tb.projectOnce(tb.ctx) // the bot learns which groups questions are assigned to
	require.NoError(t, err)

	ids := func(qs []*hitl.Question) []string {
		var out []string
		for _, q := range qs {
			out = append(out, q.ID)
		}
		return out
	}
	t.Run("assigned to them, to their groups, and open ones, newest first", func(t *testing.T) {
		qs, more, err := tb.queue(tb.ctx, "U0ALICE", 10)
		require.NoError(t, err)
		assert.Equal(t, []string{open.ID, ops.ID, mine.ID}, ids(qs))
		assert.False(t, more)
	})
	t.Run("a short page says there is more", func(t *testing.T) {
		qs, more, err := tb.queue(tb.ctx, "U0ALICE", 2)
		require.NoError(t, err)
		assert.Equal(t, []string{open.ID, ops.ID}, ids(qs))
		assert.True(t, more)
	})
	t.Run("open questions are not in the queue of someone who may not answer", func(t *testing.T) {
		tb.cfg.Access = access.Access{Answerers: []string{"U0BOB"}}
		defer func() { tb.cfg.Access = access.Access{} }()
		qs, _, err := tb.queue(tb.ctx, "U0ALICE", 10)
		require.NoError(t, err)
		assert.Equal(t, []string{ops.ID, mine.ID}, ids(qs))
	})
	t.Run("recent answers come from the responder index", func(t *testing.T) {
		actx, _ := tb.as(tb.ctx, mine, "U0ALICE")
		_, err := tb.svc.Questions.Answer(actx, mine.ID, hitl.Response{Value: "done"})
		require.NoError(t, err)
		recent, err := tb.recent(tb.ctx, "U0ALICE", recentAnswers)
		require.NoError(t, err)
		assert.Equal(t, []string{mine.ID}, ids(recent))
	})
}

// Two replicas share the outbox: the one that projects an event is not
// always the one the person opened App Home through. The tab is still
// refreshed, by the replica that holds it.
func TestHomesFollowEventsAnotherReplicaProjected(t *testing.T) {
	tb := newTestBot(t, &fakeAPI{}, access.Access{}, nil)
	other := newBot(tb.cfg, &fakeAPI{}, serviceOf(tb.svc), tb.outbox)
	other.calls = tb.ctx
	clock := &manualNow{t0}
	tb.homes.now = clock.now
	tb.homes.opened(tb.ctx, "U0ALICE")
	tb.ask(t, agentP, hitl.NewQuestion{Question: "Projected here?"})
	_, err := tb.projectOnce(tb.ctx) // this replica has looked at the log
	require.NoError(t, err)
	clock.t = clock.t.Add(time.Minute)
	users, _ := tb.homes.due()
	require.Equal(t, []string{"U0ALICE"}, users, "refreshed for the event it projected")

	tb.ask(t, agentP, hitl.NewQuestion{Question: "For anyone?"})
	n, err := other.projectOnce(tb.ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the other replica projected the question's event")
	n, err = tb.projectOnce(tb.ctx)
	require.NoError(t, err)
	require.Zero(t, n, "nothing left to project here")

	clock.t = clock.t.Add(time.Minute)
	users, _ = tb.homes.due()
	assert.Equal(t, []string{"U0ALICE"}, users, "the tab opened on this replica is refreshed")

	t.Run("events that touch no question leave the tab alone", func(t *testing.T) {
		_, err := tb.svc.Runs.Control(auth.WithPrincipal(context.Background(), auth.LocalPrincipal("tester")), steer.NewRequest("r1", steer.CommandPause, "run-x", t0, steer.ControlPayload{}))
		require.NoError(t, err)
		n, err := other.projectOnce(tb.ctx)
		require.NoError(t, err)
		require.NotZero(t, n, "the control request's ACK and RESULT are events")
		_, err = tb.projectOnce(tb.ctx)
		require.NoError(t, err)
		clock.t = clock.t.Add(time.Minute)
		users, _ := tb.homes.due()
		assert.Empty(t, users)
	})
}
