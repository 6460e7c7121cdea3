package main

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On PostgreSQL the rate limits are buckets in the database: a principal
// that spent its burst on one replica is limited on the other too.
func TestRateLimitsHoldAcrossReplicas(t *testing.T) {
	url, key := pgtest.DB(t), keyFile(t)
	limited := func(c *config.Config, _ *Main) {
		c.RateLimits.TokenPerMinute, c.RateLimits.RunPerMinute = 6, 0 // a burst of one
		c.RateLimits.ControlPerMinute = 6
	}
	r1, r2 := startReplica(t, url, key, limited), startReplica(t, url, key, limited)
	agent := principaltest.As(context.Background(), "api:agent")

	_, _, err := r1.Service.Questions.Create(agent, "rl-1", hitl.NewQuestion{Question: "First?"})
	require.NoError(t, err)
	_, _, err = r2.Service.Questions.Create(agent, "rl-2", hitl.NewQuestion{Question: "Second, on the other replica?"})
	require.Equal(t, fault.ERATELIMITED, fault.Code(err), "the burst was spent on replica 1: %v", err)
	var he *fault.Error
	require.ErrorAs(t, err, &he)
	assert.Greater(t, he.RetryAfter.Seconds(), 5.0, "told to wait for the next token")

	other := principaltest.As(context.Background(), "api:other")
	_, _, err = r2.Service.Questions.Create(other, "rl-3", hitl.NewQuestion{Question: "Another principal?"})
	assert.NoError(t, err, "each principal has its own bucket")

	t.Run("steering requests too", func(t *testing.T) {
		admin := principaltest.As(context.Background(), "admin:steer")
		_, err := r1.Service.Runs.Control(admin, steer.NewRequest("rl-c1", steer.CommandPause, "rl-run", r1.Clock.Now(), steer.ControlPayload{}))
		require.NoError(t, err)
		_, err = r2.Service.Runs.Control(admin, steer.NewRequest("rl-c2", steer.CommandPause, "rl-run", r2.Clock.Now(), steer.ControlPayload{}))
		assert.Equal(t, fault.ERATELIMITED, fault.Code(err), "%v", err)
	})
}
