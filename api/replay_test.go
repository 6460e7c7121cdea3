package api

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/require"
)

// readCounter is a store that counts the events its log reads return:
// through the whole log (Events) and through a run's index (RunEvents).
type readCounter struct {
	hitl.Store
	log, run atomic.Int64
}

func (c *readCounter) Events(ctx context.Context, after uint64, limit int) ([]*hitl.Event, error) {
	evs, err := c.Store.Events(ctx, after, limit)
	c.log.Add(int64(len(evs)))
	return evs, err
}

func (c *readCounter) RunEvents(ctx context.Context, runID string, after uint64, limit int) ([]*hitl.Event, uint64, error) {
	evs, through, err := c.Store.RunEvents(ctx, runID, after, limit)
	c.run.Add(int64(len(evs)))
	return evs, through, err
}

// TestRunReplayReadsTheRun: replaying one run's events (GET /api/events
// ?after=0&jobId=X, and the loop topic by run_id) reads that run's events
// through the log's run index, never the other runs' events: the cost of
// the replay is the run's, not the log's.
func TestRunReplayReadsTheRun(t *testing.T) {
	const others, mine = 300, 3
	setup := func(t *testing.T) (*env, *readCounter) {
		t.Helper()
		c := &readCounter{Store: memstore.New()}
		e := newEnvOver(t, c, ServerConfig{}, func(*service.ServiceConfig) {})
		for i := range others {
			e.ask(t, "job-busy", hitl.NewQuestion{Question: "q" + strconv.Itoa(i)})
		}
		for i := range mine {
			e.ask(t, "job-quiet", hitl.NewQuestion{Question: "q" + strconv.Itoa(i)})
		}
		c.log.Store(0)
		c.run.Store(0)
		return e, c
	}
	t.Run("events", func(t *testing.T) {
		e, c := setup(t)
		ch := e.openEvents(t, "?after=0&jobId=job-quiet")
		for i := range mine {
			requireEvent(t, next(t, ch), strconv.Itoa(others+i+1), "question_asked", "job-quiet")
			requireStatus(t, next(t, ch), "job-quiet", "waiting_for_input")
		}
		require.Equal(t, int64(mine), c.run.Load(), "the replay reads the run's events by its index")
		require.Zero(t, c.log.Load(), "the replay read other runs' events from the log")
	})
	t.Run("loop_topic", func(t *testing.T) {
		e, c := setup(t)
		for i := range mine {
			r := e.call(t, "POST", "/api/topics/loop:current", `{"schema":1,"event":"STATE","run_id":"job-quiet","stack":[{"id":"job-quiet","iter":`+strconv.Itoa(i)+`}]}`)
			require.Less(t, r.status, 300, r.raw)
		}
		c.log.Store(0)
		c.run.Store(0)
		ch := e.openSSE(t, context.Background(), "/api/topics/loop:current?run_id=job-quiet&after=0")
		for i := range mine {
			ev := next(t, ch)
			require.Equal(t, "job-quiet", ev.data["run_id"], "event %d", i)
		}
		require.Zero(t, c.log.Load(), "the replay read other runs' events from the log")
	})
}
