package api

import (
	"context"
	"strconv"
	"testing"

	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/require"
)

// TestTopicStreamsShareOneRead: live loop:control and loop:current streams
// each get only their topic's messages, and they come from the server's
// broadcaster: the log is read once per change, not once per open stream.
func TestTopicStreamsShareOneRead(t *testing.T) {
	const streams, states = 4, 3
	c := &readCounter{Store: memstore.New()}
	e := newEnvOver(t, c, ServerConfig{}, func(*service.ServiceConfig) {})
	ctx := context.Background()
	_, err := e.client.Run(ctx, "loop-1", client.RunOptions{Model: "haiku"})
	require.NoError(t, err)
	current := make([]<-chan sse, streams)
	for i := range current {
		current[i] = e.openSSE(t, ctx, "/api/topics/loop:current")
	}
	control := e.openSSE(t, ctx, "/api/topics/loop:control")
	c.log.Store(0)
	for i := range states {
		r := e.call(t, "POST", "/api/topics/loop:current", `{"schema":1,"event":"STATE","run_id":"loop-1","stack":[{"id":"loop-1","iter":`+strconv.Itoa(i)+`}]}`)
		require.Less(t, r.status, 300, r.raw)
	}
	r := e.call(t, "POST", "/api/topics/loop:control", `{"schema":0,"type":"REQUEST","request_id":"req-1","command":"pause","target":{"run_id":"loop-1"},"timestamp":"2025-03-01T12:00:00Z","payload":{}}`)
	require.Less(t, r.status, 300, r.raw)

	for _, ch := range current {
		for i := range states {
			ev := next(t, ch)
			require.Equal(t, steer.TopicCurrent, ev.event)
			require.Equal(t, "STATE", ev.data["event"])
			require.Equal(t, float64(i), ev.data["stack"].([]any)[0].(map[string]any)["iter"])
		}
	}
	for _, typ := range []string{"ACK", "RESULT"} {
		ev := next(t, control)
		require.Equal(t, steer.TopicControl, ev.event, "loop:control shows only control messages")
		require.Equal(t, typ, ev.data["type"])
	}
	require.LessOrEqual(t, c.log.Load(), int64(2*(states+2)), "each stream read the log itself")
}
