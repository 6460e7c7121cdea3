package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/require"
)

// benchSlack starts the real service against the fake Slack. Pacing is
// shortened so the figures show hitl's own latency, not Slack's 1 msg/s
// per channel allowance, and the per-run creation limit (30 a minute by
// default) is off, so that 300 questions in one run are not refused.
func benchSlack(b *testing.B) *slackEnv {
	b.Helper()
	return slackEnvOn(b, slackfake.New(b, slackfake.FailOnReject()), 5*time.Minute, withPostInterval(time.Nanosecond),
		func(c *config.Config, _ *Main) { c.RateLimits = config.RateLimits{} })
}

func reportPercentiles(b *testing.B, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	if len(ds) == 0 {
		return
	}
	p := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) }
	b.ReportMetric(p(0.50), "p50-µs")
	b.ReportMetric(p(0.99), "p99-µs")
}

// BenchmarkSlackCreateToPost measures from the API call that creates a
// question to the fake Slack receiving its chat.postMessage.
func BenchmarkSlackCreateToPost(b *testing.B) {
	e := benchSlack(b)
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		q, _, err := e.api.Create(e.ctx, "bench-post", hitl.NewQuestion{Question: fmt.Sprintf("Benchmark question %d?", i)})
		require.NoError(b, err)
		_, err = e.srv.WaitForCall(e.ctx, "chat.postMessage", func(c slackfake.Call) bool {
			return c.OK && strings.Contains(c.Param("blocks"), "q:"+q.ID)
		})
		require.NoError(b, err)
		ds = append(ds, time.Since(start))
	}
	reportPercentiles(b, ds)
}

// BenchmarkSlackClickToWake measures from a button click arriving over
// Socket Mode to the agent's long poll returning the answer.
func BenchmarkSlackClickToWake(b *testing.B) {
	e := benchSlack(b)
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		q, _, err := e.api.Create(e.ctx, "bench-click", hitl.NewQuestion{Question: fmt.Sprintf("Click %d?", i), ResponseType: hitl.BooleanResponse})
		require.NoError(b, err)
		msg, err := e.srv.WaitForMessage(e.ctx, testChannel, func(m slackfake.Message) bool { return strings.Contains(string(m.Blocks), "q:"+q.ID) })
		require.NoError(b, err)
		woke := make(chan time.Time, 1)
		ready := make(chan struct{})
		go func() {
			close(ready)
			_, err := e.api.Wait(e.ctx, q.ID)
			if err == nil {
				woke <- time.Now()
			}
		}()
		<-ready
		blockID, value := findElement(b, msg.Blocks, blocks.ActionYes)
		b.StartTimer()
		start := time.Now()
		_, err = e.srv.SendInteractive(e.ctx, e.srv.BlockActions("U0ALICE", msg.Channel, msg.TS, blocks.ActionYes, blockID, value))
		require.NoError(b, err)
		select {
		case at := <-woke:
			ds = append(ds, at.Sub(start))
		case <-e.ctx.Done():
			b.Fatal("agent not woken")
		}
	}
	reportPercentiles(b, ds)
}
