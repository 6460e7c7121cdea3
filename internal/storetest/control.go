package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runSteerRuns is the contract of SteerRun: a control request's record,
// the run it steers and the events it logs (ACK, RESULT, loop event) are
// one commit, a record is held per principal (hitl.ControlKeyOf), and one
// request key's calls are serialised.
func runSteerRuns(t *testing.T, newEnv func(*testing.T) *env) {
	t.Run("fn gets the request's record, and the run, events and record are written together", func(t *testing.T) { testSteerWrites(t, newEnv(t)) })
	t.Run("a record without a RESULT is handed back as written", func(t *testing.T) { testSteerInflightRecord(t, newEnv(t)) })
	t.Run("fn's error writes neither the events nor the record", func(t *testing.T) { testSteerRefused(t, newEnv(t)) })
	t.Run("nothing to write leaves everything as it is", func(t *testing.T) { testSteerNothing(t, newEnv(t)) })
	t.Run("one request id's calls are serialised, whatever run they name", func(t *testing.T) { testSteerSerialised(t, newEnv(t)) })
	t.Run("a request id is held per principal: another's is a new request", func(t *testing.T) { testSteerPerPrincipal(t, newEnv(t)) })
	t.Run("prune deletes the control records received before before, each principal's alone", func(t *testing.T) { testSteerPrune(t, newEnv(t)) })
}

// ops is the principal steering writes records for.
const ops = "api:ops"

// opsKey is the key of ops's request id.
func opsKey(id string) hitl.ControlKey { return hitl.ControlKeyOf(ops, id) }

// storedControl is the record held under key as SteerRun hands it to fn
// (nil: none), read by a call that writes nothing.
func storedControl(t *testing.T, st hitl.Store, run string, key hitl.ControlKey) *hitl.ControlRecord {
	t.Helper()
	var got *hitl.ControlRecord
	_, err := st.SteerRun(context.Background(), run, key, func(_ *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error) {
		got = prior
		return hitl.RunUpdate{}, nil
	})
	require.NoError(t, err)
	return got
}

// steering is what Service.Control writes for ops's request id on run:
// the run, the ACK, the RESULT and a loop event, and the record with its
// RESULT.
func steering(run *hitl.Run, id string, at time.Time) hitl.RunUpdate {
	return steeringBy(ops, run, id, at)
}

// steeringBy is steering for principal by.
func steeringBy(by string, run *hitl.Run, id string, at time.Time) hitl.RunUpdate {
	msg := func(typ steer.MessageType) *steer.ControlMessage {
		return &steer.ControlMessage{Type: typ, RequestID: id, Command: steer.CommandCancel, Target: steer.ControlTarget{RunID: run.ID}}
	}
	result := msg(steer.MessageResult)
	return hitl.RunUpdate{Run: run,
		Events: []*hitl.Event{
			{Type: hitl.EventControl, RunID: run.ID, At: at, Control: msg(steer.MessageAck)},
			{Type: hitl.EventControl, RunID: run.ID, At: at, Control: result},
			{Type: hitl.EventRunState, RunID: run.ID, At: at, State: &steer.StateEvent{Schema: steer.StateSchema, Event: steer.StateAbort, RunID: run.ID}},
		},
		Control: &hitl.ControlRecord{RequestID: id, RunID: run.ID, Command: steer.CommandCancel, By: by, At: at, Result: result}}
}

func testSteerWrites(t *testing.T, e *env) {
	ctx := context.Background()
	putRun(t, e.store, "loop-1", steer.RunRunning)
	before := lastSeq(t, e.store)
	stored, err := e.store.SteerRun(ctx, "loop-1", opsKey("req-1"), func(run *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error) {
		require.NotNil(t, run, "fn gets the run")
		assert.Nil(t, prior, "and no record: the request is new")
		c := *run
		c.Control.Status = steer.RunCancelled
		return steering(&c, "req-1", t0), nil
	})
	require.NoError(t, err)
	require.NotNil(t, stored)
	assert.Equal(t, steer.RunCancelled, stored.Control.Status, "it returns the run as stored")
	got, err := e.store.Run(ctx, "loop-1")
	require.NoError(t, err)
	assert.Equal(t, stored, got)

	evs := events(t, e.store, before)
	require.Len(t, evs, 3, "one ACK, one RESULT, one loop event")
	assert.Equal(t, steer.MessageAck, evs[0].Control.Type, "in order")
	assert.Equal(t, steer.MessageResult, evs[1].Control.Type)
	assert.Equal(t, steer.StateAbort, evs[2].State.Event)
	for _, ev := range evs {
		assert.Equal(t, steer.RunCancelled, ev.Status, "stamped with the run's status")
	}

	prior := storedControl(t, e.store, "loop-1", opsKey("req-1"))
	require.NotNil(t, prior, "the record was written")
	assert.Equal(t, "api:ops", prior.By)
	assert.True(t, t0.Equal(prior.At))
	require.NotNil(t, prior.Result, "with its RESULT")
	assert.Equal(t, "req-1", prior.Result.RequestID)
	assert.Nil(t, storedControl(t, e.store, "loop-1", opsKey("req-2")), "another id has none")
	assert.Equal(t, prior, storedControl(t, e.store, "loop-other", opsKey("req-1")), "a request id's record, whatever run a retry names")
}

func testSteerInflightRecord(t *testing.T, e *env) {
	ctx := context.Background()
	_, err := e.store.SteerRun(ctx, "loop-1", opsKey("req-old"), func(*hitl.Run, *hitl.ControlRecord) (hitl.RunUpdate, error) {
		return hitl.RunUpdate{Control: &hitl.ControlRecord{RequestID: "req-old", RunID: "loop-1", Command: steer.CommandPause, By: ops, At: t0}}, nil
	})
	require.NoError(t, err)
	prior := storedControl(t, e.store, "loop-1", opsKey("req-old"))
	require.NotNil(t, prior)
	assert.Nil(t, prior.Result, "as written: the root decides what it means")
	_, err = e.store.Run(ctx, "loop-1")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "a record alone creates no run")
}

func testSteerRefused(t *testing.T, e *env) {
	ctx := context.Background()
	run := putRun(t, e.store, "loop-1", steer.RunRunning)
	before := lastSeq(t, e.store)
	want := errors.New("refused by fn")
	_, err := e.store.SteerRun(ctx, "loop-1", opsKey("req-1"), func(run *hitl.Run, _ *hitl.ControlRecord) (hitl.RunUpdate, error) {
		c := *run
		c.Control.Status = steer.RunCancelled
		return steering(&c, "req-1", t0), want
	})
	assert.Same(t, want, err, "fn's error is returned as it is")
	got, err := e.store.Run(ctx, "loop-1")
	require.NoError(t, err)
	assert.Equal(t, run, got, "the run is as it was")
	assert.Equal(t, before, lastSeq(t, e.store), "no ACK, no RESULT")
	assert.Nil(t, storedControl(t, e.store, "loop-1", opsKey("req-1")), "no record: a retry is new")
}

func testSteerNothing(t *testing.T, e *env) {
	ctx := context.Background()
	run := putRun(t, e.store, "loop-1", steer.RunPaused)
	before := lastSeq(t, e.store)
	stored, err := e.store.SteerRun(ctx, "loop-1", opsKey("req-1"), func(*hitl.Run, *hitl.ControlRecord) (hitl.RunUpdate, error) {
		return hitl.RunUpdate{}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, run, stored, "the run as it is, same version")
	assert.Equal(t, before, lastSeq(t, e.store))
	none, err := e.store.SteerRun(ctx, "loop-none", opsKey("req-2"), func(run *hitl.Run, _ *hitl.ControlRecord) (hitl.RunUpdate, error) {
		assert.Nil(t, run, "fn gets nil for a run there is none of")
		return hitl.RunUpdate{}, nil
	})
	require.NoError(t, err)
	assert.Nil(t, none)
}

func testSteerSerialised(t *testing.T, e *env) {
	ctx := context.Background()
	const n = 12
	for i := range n {
		putRun(t, e.store, fmt.Sprintf("loop-%d", i), steer.RunRunning)
	}
	before := lastSeq(t, e.store)
	var fresh atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			id := fmt.Sprintf("loop-%d", i)
			var first bool
			_, err := e.store.SteerRun(ctx, id, opsKey("req-same"), func(run *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error) {
				if first = prior == nil; !first {
					return hitl.RunUpdate{}, nil // seen: a retry
				}
				c := *run
				c.Control.Status = steer.RunCancelled
				return steering(&c, "req-same", t0), nil
			})
			assert.NoError(t, err)
			if first {
				fresh.Add(1)
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, 1, fresh.Load(), "exactly one call found no record")
	assert.Len(t, events(t, e.store, before), 3, "and only it wrote")
	cancelled := 0
	for i := range n {
		run, err := e.store.Run(ctx, fmt.Sprintf("loop-%d", i))
		require.NoError(t, err)
		if run.Control.Status == steer.RunCancelled {
			cancelled++
		}
	}
	assert.Equal(t, 1, cancelled, "one run was steered")
}

// putControl stores rec alone (no run, no event).
func putControl(t *testing.T, st hitl.Store, rec hitl.ControlRecord) {
	t.Helper()
	_, err := st.UpdateRun(context.Background(), rec.RunID, func(*hitl.Run) (hitl.RunUpdate, error) {
		return hitl.RunUpdate{Control: &rec}, nil
	})
	require.NoError(t, err)
}

func testSteerPerPrincipal(t *testing.T, e *env) {
	ctx := context.Background()
	putRun(t, e.store, "loop-1", steer.RunRunning)
	_, err := e.store.SteerRun(ctx, "loop-1", opsKey("req-1"), func(run *hitl.Run, _ *hitl.ControlRecord) (hitl.RunUpdate, error) {
		c := *run
		c.Control.Status = steer.RunCancelled
		return steering(&c, "req-1", t0), nil
	})
	require.NoError(t, err)

	other := hitl.ControlKeyOf("api:other", "req-1")
	called := false
	_, err = e.store.SteerRun(ctx, "loop-1", other, func(run *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error) {
		called = true
		assert.Nil(t, prior, "another principal's request with the same id finds no record")
		return steeringBy("api:other", run, "req-1", t0.Add(time.Second)), nil
	})
	require.NoError(t, err)
	require.True(t, called)
	mine := storedControl(t, e.store, "loop-1", opsKey("req-1"))
	require.NotNil(t, mine, "the first principal's record is still there")
	assert.Equal(t, ops, mine.By)
	assert.True(t, t0.Equal(mine.At), "untouched by the other's")
	theirs := storedControl(t, e.store, "loop-1", other)
	require.NotNil(t, theirs, "the other's record is its own")
	assert.Equal(t, "api:other", theirs.By)
	assert.True(t, t0.Add(time.Second).Equal(theirs.At))
	assert.Nil(t, storedControl(t, e.store, "loop-1", hitl.ControlKeyOf("api:third", "req-1")), "a third principal has none")

	putControl(t, e.store, hitl.ControlRecord{RequestID: "req-2", RunID: "loop-1", Command: steer.CommandPause, By: "local:alice", At: t0})
	for _, by := range []string{"local:alice", "local:bob", "local"} {
		assert.NotNil(t, storedControl(t, e.store, "loop-1", hitl.ControlKeyOf(by, "req-2")), "held under the record's Key: %s is the same local person", by)
	}
	assert.Nil(t, storedControl(t, e.store, "loop-1", opsKey("req-2")), "not for anyone else")
}

func testSteerPrune(t *testing.T, e *env) {
	ctx := context.Background()
	late := t0.Add(2 * time.Hour)
	putControl(t, e.store, hitl.ControlRecord{RequestID: "req-1", RunID: "loop-1", Command: steer.CommandPause, By: ops, At: t0})
	putControl(t, e.store, hitl.ControlRecord{RequestID: "req-1", RunID: "loop-1", Command: steer.CommandPause, By: "api:other", At: late})
	putControl(t, e.store, hitl.ControlRecord{RequestID: "req-2", RunID: "loop-1", Command: steer.CommandPause, By: ops, At: late})
	n, err := e.store.Prune(ctx, t0.Add(time.Hour), 10)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "one record was received before before")
	assert.Nil(t, storedControl(t, e.store, "loop-1", opsKey("req-1")), "it is gone")
	assert.NotNil(t, storedControl(t, e.store, "loop-1", hitl.ControlKeyOf("api:other", "req-1")), "the other principal's, with the same id, stays")
	assert.NotNil(t, storedControl(t, e.store, "loop-1", opsKey("req-2")))
	n, err = e.store.Prune(ctx, late.Add(time.Nanosecond), 10)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Nil(t, storedControl(t, e.store, "loop-1", hitl.ControlKeyOf("api:other", "req-1")))
}
