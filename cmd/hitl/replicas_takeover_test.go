package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Slack replica holding a channel's claim dies (SIGKILL) with that
// channel's deliveries queued behind a post Slack rate limited; a replica
// started after takes the channel once the dead one's lease ran out and
// posts every queued question once, in order.
func TestReplicaTakesOverADeadSlackReplicasDeliveries(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a replica in a child process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url, key := pgtest.DB(t), keyFile(t)
	srv := slackfake.New(t, slackfake.FailOnReject())
	// The dead replica's first post is refused with a minute's
	// Retry-After: it holds the claim, waiting, when it is killed, and no
	// post of it is in flight.
	srv.FailNext("chat.postMessage", 1, 429, time.Minute)
	child := startChildReplica(t, ctx, url, key, childSlackEnv(srv.AppToken(), srv.BotToken(), srv.APIURL(), testChannel)...)
	require.NoError(t, srv.WaitConnected(ctx, 1))

	api := client.NewClient(child.url, "")
	const n = 5
	var qs []*hitl.Question
	for i := range n {
		q, _, err := api.Create(ctx, "takeover", hitl.NewQuestion{Question: fmt.Sprintf("Ship part %d?", i)})
		require.NoError(t, err)
		qs = append(qs, q)
	}
	_, err := srv.WaitForCalls(ctx, "chat.postMessage", 1)
	require.NoError(t, err, "the child replica tried to post:\n%s", child.log.String())
	child.kill(t)

	r := startReplica(t, url, key, withSlack(srv), replicaTuning)
	claimed := time.Now()
	for _, q := range qs {
		_, err := srv.WaitForMessage(ctx, testChannel, func(m slackfake.Message) bool {
			return m.ThreadTS == "" && strings.Contains(string(m.Blocks), "q:"+q.ID)
		})
		require.NoError(t, err, "question %s was not posted after the takeover", q.ID)
	}
	t.Logf("the queued questions were posted %s after the survivor started (lease %s)", time.Since(claimed).Round(time.Millisecond), replicaLease)
	untilDrained(t, ctx, r)

	var order []string
	posts := map[string]int{}
	var limited, firstPost time.Time
	for _, c := range srv.Calls("chat.postMessage") {
		if !c.OK {
			limited = c.At
			continue
		}
		if firstPost.IsZero() {
			firstPost = c.At
		}
		for _, q := range qs {
			if strings.Contains(c.Params.Get("blocks"), "q:"+q.ID) {
				posts[q.ID]++
				order = append(order, q.ID)
			}
		}
	}
	var want []string
	for _, q := range qs {
		assert.Equal(t, 1, posts[q.ID], "question %s posted once", q.ID)
		want = append(want, q.ID)
	}
	assert.Equal(t, want, order, "posted in the order they were asked")
	// The dead replica's claim held until its lease ran out (the claim
	// was taken just before the rate-limited call).
	assert.GreaterOrEqual(t, firstPost.Sub(limited), replicaLease/2, "the survivor posted before the dead replica's lease ran out")
}

// untilDrained waits until m's outbox has projected the whole event log
// and has no delivery queued: no post is still coming.
func untilDrained(t *testing.T, ctx context.Context, m *Main) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		last, err := m.DB.LastSeq(ctx)
		require.NoError(t, err)
		cursor, err := m.DB.OutboxCursor(ctx)
		require.NoError(t, err)
		targets, err := m.DB.Targets(ctx, "", 10)
		require.NoError(t, err)
		if cursor >= last && len(targets) == 0 {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("the outbox did not drain: cursor %d of %d, deliveries queued for %v", cursor, last, targets)
		}
	}
}

// A Slack replica is killed (SIGKILL) with a post in flight: Slack takes
// the post, the replica never records it. The replica that takes the
// channel over finds the message (its metadata names the question and
// target) and records it instead of posting it again; the rest of the
// queue is posted once.
func TestReplicaTakesOverAPostInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a replica in a child process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url, key := pgtest.DB(t), keyFile(t)
	srv := slackfake.New(t, slackfake.FailOnReject())
	hold := srv.Hold("chat.postMessage")
	child := startChildReplica(t, ctx, url, key, childSlackEnv(srv.AppToken(), srv.BotToken(), srv.APIURL(), testChannel)...)
	require.NoError(t, srv.WaitConnected(ctx, 1))

	api := client.NewClient(child.url, "")
	var qs []*hitl.Question
	for i := range 3 {
		q, _, err := api.Create(ctx, "in-flight", hitl.NewQuestion{Question: fmt.Sprintf("Ship part %d?", i)})
		require.NoError(t, err)
		qs = append(qs, q)
	}
	require.NoError(t, hold.Arrived(ctx, 1), "the child replica's first post reached Slack:\n%s", child.log.String())
	child.kill(t)
	// Slack goes on with the post whose caller died.
	first, err := srv.WaitForMessage(ctx, testChannel, func(m slackfake.Message) bool {
		return m.ThreadTS == "" && strings.Contains(string(m.Blocks), "q:"+qs[0].ID)
	})
	require.NoError(t, err, "Slack took the post in flight")
	hold.Release()

	r := startReplica(t, url, key, withSlack(srv), replicaTuning)
	for _, q := range qs[1:] {
		_, err := srv.WaitForMessage(ctx, testChannel, func(m slackfake.Message) bool {
			return m.ThreadTS == "" && strings.Contains(string(m.Blocks), "q:"+q.ID)
		})
		require.NoError(t, err, "question %s was not posted after the takeover", q.ID)
	}
	untilDrained(t, ctx, r)
	posts := map[string]int{}
	for _, c := range srv.Calls("chat.postMessage") {
		for _, q := range qs {
			if c.OK && strings.Contains(c.Params.Get("blocks"), "q:"+q.ID) {
				posts[q.ID]++
			}
		}
	}
	for _, q := range qs {
		assert.Equal(t, 1, posts[q.ID], "question %s posted once", q.ID)
	}
	refs, err := r.DB.Delivered(ctx, qs[0].ID)
	require.NoError(t, err)
	require.Len(t, refs, 1)
	assert.Equal(t, first.TS, refs[0].TS, "the message the dead replica posted is recorded as the question's")
	assert.NotEmpty(t, srv.Calls("conversations.history"), "the survivor looked before posting")
}
