package service_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeCounter counts the run writes made through it (UpdateRun,
// SteerRun, AppendEvent) and fails SteerRun with failSteer when set.
type writeCounter struct {
	hitl.Store
	mu        sync.Mutex
	writes    int
	failSteer error
}

func (w *writeCounter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes
}

func (w *writeCounter) add() {
	w.mu.Lock()
	w.writes++
	w.mu.Unlock()
}

func (w *writeCounter) UpdateRun(ctx context.Context, id string, fn func(*hitl.Run) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	w.add()
	return w.Store.UpdateRun(ctx, id, fn)
}

func (w *writeCounter) SteerRun(ctx context.Context, id string, req hitl.ControlKey, fn func(*hitl.Run, *hitl.ControlRecord) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	w.add()
	w.mu.Lock()
	fail := w.failSteer
	w.mu.Unlock()
	if fail != nil {
		return nil, fail
	}
	return w.Store.SteerRun(ctx, id, req, fn)
}

func (w *writeCounter) AppendEvent(ctx context.Context, ev *hitl.Event) error {
	w.add()
	return w.Store.AppendEvent(ctx, ev)
}

func newCountedEnv(t *testing.T) (*controlEnv, *writeCounter) {
	t.Helper()
	w := &writeCounter{Store: memstore.New()}
	clock := clocktest.New(t0)
	return &controlEnv{st: w.Store.(*memstore.Store), clock: clock,
		svc: service.NewService(w, service.ServiceConfig{Notifier: notify.New(), Clock: clock})}, w
}

// controlLog is the loop:control and loop:current events after seq, as
// "ACK pause", "RESULT pause", "STATE 5".
func controlLog(t *testing.T, st hitl.Store, after uint64) []string {
	t.Helper()
	evs, err := st.Events(context.Background(), after, 0)
	require.NoError(t, err)
	var out []string
	for _, ev := range evs {
		switch ev.Type {
		case hitl.EventControl:
			out = append(out, string(ev.Control.Type)+" "+string(ev.Control.Command))
		case hitl.EventRunState:
			out = append(out, fmt.Sprintf("%s %d", ev.State.Event, ev.State.Stack[0].Iter))
		}
	}
	return out
}

func lastSeq(t *testing.T, st hitl.Store) uint64 {
	t.Helper()
	n, err := st.LastSeq(context.Background())
	require.NoError(t, err)
	return n
}

func TestControlIsOneCommit(t *testing.T) {
	for _, tc := range []struct {
		cmd     steer.Command
		payload steer.ControlPayload
		paused  bool
		log     []string
	}{
		{steer.CommandPause, steer.ControlPayload{}, false, []string{"ACK pause", "RESULT pause"}},
		{steer.CommandResume, steer.ControlPayload{}, true, []string{"ACK resume", "RESULT resume"}},
		{steer.CommandCancel, steer.ControlPayload{}, false, []string{"ACK cancel", "RESULT cancel", "ABORT 4"}},
		{steer.CommandEscalate, steer.ControlPayload{Model: "opus"}, false, []string{"ACK escalate", "RESULT escalate", "STATE 4"}},
		{steer.CommandRedirect, steer.ControlPayload{Instruction: "Use v2"}, false, []string{"ACK redirect", "RESULT redirect"}},
		{steer.CommandResume, steer.ControlPayload{}, false, []string{"ACK resume", "RESULT resume"}}, // invalid_state
	} {
		t.Run(fmt.Sprintf("%s (paused %v): ACK and RESULT in one commit, in order", tc.cmd, tc.paused), func(t *testing.T) {
			e, w := newCountedEnv(t)
			e.state(t, "loop-1", 4, "haiku")
			if tc.paused {
				e.send(t, controller, "req-0", steer.CommandPause, "loop-1", steer.ControlPayload{})
			}
			before, seq := w.count(), lastSeq(t, w)
			msgs := e.send(t, controller, "req-1", tc.cmd, "loop-1", tc.payload)
			require.Len(t, msgs, 2)
			assert.Equal(t, steer.MessageAck, msgs[0].Type)
			assert.Equal(t, steer.MessageResult, msgs[1].Type)
			assert.Equal(t, 1, w.count()-before, "one store write: the ACK with the command")
			assert.Equal(t, tc.log, controlLog(t, w, seq))
		})
	}
	t.Run("a store failure leaves neither the ACK nor the request: the retry is carried out", func(t *testing.T) {
		e, w := newCountedEnv(t)
		e.state(t, "loop-1", 4, "haiku")
		seq := lastSeq(t, w)
		w.failSteer = errors.New("disk full")
		req := steer.NewRequest("req-1", steer.CommandPause, "loop-1", e.clock.Now(), steer.ControlPayload{})
		msgs, err := e.svc.Runs.Control(auth.WithPrincipal(context.Background(), controller), req)
		require.Error(t, err)
		assert.Empty(t, msgs, "no ACK: nothing was received durably")
		assert.Empty(t, controlLog(t, w, seq), "nothing logged")
		w.failSteer = nil
		msgs = e.send(t, controller, "req-1", steer.CommandPause, "loop-1", steer.ControlPayload{})
		require.Len(t, msgs, 2, "the retry is new, not a duplicate")
		assert.Equal(t, steer.ResultSuccess, result(t, msgs).Status)
		assert.Equal(t, []string{"ACK pause", "RESULT pause"}, controlLog(t, w, seq))
	})
	t.Run("a retry writes nothing and gets the RESULT first given", func(t *testing.T) {
		e, w := newCountedEnv(t)
		e.state(t, "loop-1", 4, "haiku")
		first := e.send(t, controller, "req-1", steer.CommandPause, "loop-1", steer.ControlPayload{})
		seq := lastSeq(t, w)
		again := e.send(t, controller, "req-1", steer.CommandPause, "loop-1", steer.ControlPayload{})
		assert.Equal(t, first[1:], again)
		assert.Equal(t, seq, lastSeq(t, w), "no ACK, no RESULT logged again")
	})
	t.Run("concurrent retries of one request: one is carried out, all get its RESULT", func(t *testing.T) {
		e, w := newCountedEnv(t)
		e.state(t, "loop-1", 4, "haiku")
		seq := lastSeq(t, w)
		const n = 8
		results := make([]steer.ControlMessage, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				msgs, err := e.svc.Runs.Control(auth.WithPrincipal(context.Background(), controller),
					steer.NewRequest("req-1", steer.CommandPause, "loop-1", e.clock.Now(), steer.ControlPayload{}))
				assert.NoError(t, err)
				results[i] = msgs[len(msgs)-1]
			})
		}
		wg.Wait()
		for _, r := range results {
			assert.Equal(t, results[0], r)
			assert.Equal(t, steer.ResultSuccess, r.Payload.Status, "never invalid_state: the pause is carried out once")
		}
		assert.Equal(t, []string{"ACK pause", "RESULT pause"}, controlLog(t, w, seq))
	})
}

// TestControlDedup is the steering protocol's dedup rule (Service.seen), one row per
// case, against a record stored at at (with or without its RESULT) and a
// service that started at started.
func TestControlDedup(t *testing.T) {
	for _, tc := range []struct {
		name       string
		age        time.Duration // how long before the retry the record was made
		withResult bool
		started    time.Duration // how long before the retry the service started
		want       string        // "cached", "duplicate", "reused" or "new"
		by         string        // who sent the stored request ("": controller, the retry's sender)
		command    steer.Command // the retry's ("": the stored request's, pause)
	}{
		{"carried out within the window: the cached RESULT", 4 * time.Minute, true, time.Hour, "cached", "", ""},
		{"carried out exactly DedupWindow ago: still cached", service.DedupWindow, true, time.Hour, "cached", "", ""},
		{"carried out before the window: new", service.DedupWindow + time.Nanosecond, true, time.Hour, "new", "", ""},
		{"in flight since this service started (an older replica): duplicate", time.Minute, false, 2 * time.Minute, "duplicate", "", ""},
		{"in flight from exactly when it started: duplicate", time.Minute, false, time.Minute, "duplicate", "", ""},
		{"in flight from before a restart: cut off, carried out", time.Minute, false, 30 * time.Second, "new", "", ""},
		{"in flight before the window: new", service.DedupWindow + time.Second, false, time.Hour, "new", "", ""},
		{"another principal's, carried out within the window: new", 4 * time.Minute, true, time.Hour, "new", "api:ops2", ""},
		{"another principal's, in flight since this service started: new", time.Minute, false, 2 * time.Minute, "new", "api:ops2", ""},
		{"another local user's on a tokenless server (one principal): cached", 4 * time.Minute, true, time.Hour, "cached", "local:alice", ""},
		{"another command with the id, within the window: refused, nothing carried out", 4 * time.Minute, true, time.Hour, "reused", "", steer.CommandResume},
		{"another command with the id, in flight: refused", time.Minute, false, 2 * time.Minute, "reused", "", steer.CommandResume},
		{"the id again after the window: a new request", service.DedupWindow + time.Second, true, time.Hour, "new", "", steer.CommandPause},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newControlEnv(t)
			e.state(t, "loop-1", 4, "haiku")
			retryAt := t0.Add(time.Hour)
			e.clock.Set(retryAt.Add(-tc.started))
			// the service starts serving control requests now
			e.send(t, controller, "req-start", steer.CommandRedirect, "loop-1", steer.ControlPayload{Instruction: "x"})
			sender, by := controller, controller.ID
			if tc.by != "" {
				by = tc.by
			}
			if strings.HasPrefix(by, "local:") {
				sender = auth.LocalPrincipal("bob")
			}
			rec := hitl.ControlRecord{RequestID: "req-1", RunID: "loop-1", Command: steer.CommandPause, By: by, At: retryAt.Add(-tc.age)}
			if tc.withResult {
				rec.Result = &steer.ControlMessage{Type: steer.MessageResult, RequestID: "req-1", Command: steer.CommandPause,
					Payload: steer.ControlPayload{Status: steer.ResultSuccess, Message: "Paused, as first carried out"}}
			}
			retry := tc.command
			if retry == "" {
				retry = steer.CommandPause
			}
			_, err := e.st.UpdateRun(context.Background(), "loop-1", func(*hitl.Run) (hitl.RunUpdate, error) {
				return hitl.RunUpdate{Control: &rec}, nil
			})
			require.NoError(t, err)
			e.clock.Set(retryAt)
			msgs := e.send(t, sender, "req-1", retry, "loop-1", steer.ControlPayload{})
			switch p := result(t, msgs); tc.want {
			case "cached":
				require.Len(t, msgs, 1)
				assert.Equal(t, "Paused, as first carried out", p.Message)
			case "reused":
				require.Len(t, msgs, 1, "no ACK: not received")
				assert.Equal(t, steer.CodeDuplicate, p.Code)
				assert.Contains(t, p.Message, "request_id req-1 was already used at")
				assert.NotContains(t, p.Message, "Paused, as first carried out", "never the first request's outcome")
			case "duplicate":
				require.Len(t, msgs, 1)
				assert.Equal(t, steer.CodeDuplicate, p.Code)
			case "new":
				require.Len(t, msgs, 2)
				assert.Equal(t, "Loop paused at iteration 4 of 10", p.Message)
			}
		})
	}
}
