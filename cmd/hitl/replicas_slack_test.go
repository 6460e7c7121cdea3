package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two replicas with Slack on one database: both project the shared event
// log and both run delivery workers, yet each question is posted once
// (deliveries enqueued once, each target done by the replica holding its
// claim), and the Slack answer wakes the agent wherever it waits.
func TestReplicasShareSlackDeliveries(t *testing.T) {
	url, key := pgtest.DB(t), keyFile(t)
	srv := slackfake.New(t, slackfake.FailOnReject())
	replica := func() *Main {
		// unlimited: 30 asks in a burst, which the rate limits (shared by
		// the replicas) would refuse.
		return startReplica(t, url, key, withSlack(srv), unlimited)
	}
	r1, r2 := replica(), replica()
	ctx, cancel := context.WithTimeout(principaltest.As(context.Background(), "admin:test"), 60*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitConnected(ctx, 2))

	agent := principaltest.As(context.Background(), "api:agent")
	const n = 30
	var qs []*hitl.Question
	for i := range n {
		m := r1
		if i%2 == 1 {
			m = r2
		}
		q, _, err := m.Service.Questions.Create(agent, fmt.Sprintf("run-%d", i%3), hitl.NewQuestion{Question: fmt.Sprintf("Deploy build %d?", i)})
		require.NoError(t, err)
		qs = append(qs, q)
	}
	for _, q := range qs {
		_, err := srv.WaitForMessage(ctx, testChannel, func(m slackfake.Message) bool {
			return m.ThreadTS == "" && strings.Contains(string(m.Blocks), "q:"+q.ID)
		})
		require.NoError(t, err, "question %s was not posted", q.ID)
	}
	untilDrained(t, ctx, r1)
	posts := map[string]int{}
	for _, c := range srv.Calls("chat.postMessage") {
		for _, q := range qs {
			if strings.Contains(c.Params.Get("blocks"), "q:"+q.ID) {
				posts[q.ID]++
			}
		}
	}
	for _, q := range qs {
		assert.Equal(t, 1, posts[q.ID], "question %s posted once", q.ID)
	}

	t.Run("a click in Slack wakes the agent waiting on the other replica", func(t *testing.T) {
		e := &slackEnv{ctx: ctx, m: r1, srv: srv}
		q, _, err := r1.Service.Questions.Create(agent, "deploy-rep", hitl.NewQuestion{Question: "Deploy to production?", Type: hitl.Approval})
		require.NoError(t, err)
		waited := make(chan *hitl.Question, 1)
		go func() {
			got, err := r2.Service.Questions.Wait(agent, q.ID)
			assert.NoError(t, err)
			waited <- got
		}()
		e.click(t, "U0ALICE", e.posted(t, testChannel, q), blocks.ActionApprove)
		select {
		case got := <-waited:
			assert.Equal(t, hitl.StatusAnswered, got.Status)
		case <-ctx.Done():
			t.Fatal("the agent waiting on replica 2 was not woken")
		}
	})
}
