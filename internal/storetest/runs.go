package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runRunRecords is the contract of UpdateRun, Run, Runs and the policy
// state (SteerRun: control.go).
func runRunRecords(t *testing.T, newEnv func(*testing.T) *env) {
	t.Run("a run update writes the run, its events in order and the control record together", func(t *testing.T) { testUpdateRunWrites(t, newEnv(t)) })
	t.Run("a run update that fn refuses writes nothing", func(t *testing.T) { testUpdateRunRefused(t, newEnv(t)) })
	t.Run("concurrent run updates lose none", func(t *testing.T) { testUpdateRunConcurrent(t, newEnv(t)) })
	t.Run("events alone leave the run as it is", func(t *testing.T) { testUpdateRunEventsOnly(t, newEnv(t)) })
	t.Run("runs page by id up to the limit", func(t *testing.T) { testRunsPaging(t, newEnv(t)) })
}

func putRun(t *testing.T, st hitl.Store, id string, status steer.RunStatus) *hitl.Run {
	t.Helper()
	run, err := st.UpdateRun(context.Background(), id, func(*hitl.Run) (hitl.RunUpdate, error) {
		return hitl.RunUpdate{Run: &hitl.Run{ID: id, CreatedAt: t0, UpdatedAt: t0, Control: steer.RunControl{Status: status}}}, nil
	})
	require.NoError(t, err)
	return run
}

func testUpdateRunWrites(t *testing.T, e *env) {
	ctx := context.Background()
	before := lastSeq(t, e.store)
	result := &steer.ControlMessage{Type: steer.MessageResult, RequestID: "req-1"}
	rec := &hitl.ControlRecord{RequestID: "req-1", RunID: "loop-1", Command: steer.CommandPause, By: "slack:U0ME", At: t0, Result: result}
	stored, err := e.store.UpdateRun(ctx, "loop-1", func(run *hitl.Run) (hitl.RunUpdate, error) {
		if run != nil {
			return hitl.RunUpdate{}, fmt.Errorf("run %s exists already", run.ID)
		}
		return hitl.RunUpdate{
			Run: &hitl.Run{ID: "loop-1", CreatedAt: t0, UpdatedAt: t0, Asker: agent.ID, Control: steer.RunControl{Status: steer.RunPaused, Model: "m1"}},
			Events: []*hitl.Event{
				{Type: hitl.EventControl, RunID: "loop-1", At: t0, Reason: "first"},
				{Type: hitl.EventControl, RunID: "loop-1", At: t0, Reason: "second"},
			},
			Control: rec,
		}, nil
	})
	require.NoError(t, err)
	require.NotNil(t, stored)
	assert.Equal(t, steer.RunPaused, stored.Control.Status)
	got, err := e.store.Run(ctx, "loop-1")
	require.NoError(t, err)
	assert.Equal(t, stored, got, "it returns the run as stored")

	evs := events(t, e.store, before)
	require.Len(t, evs, 2)
	assert.Equal(t, "first", evs[0].Reason, "events in order")
	assert.Equal(t, "second", evs[1].Reason)
	for _, ev := range evs {
		assert.Equal(t, steer.RunPaused, ev.Status, "stamped with the run's status")
		assert.Equal(t, agent.ID, ev.Asker, "and its asker")
	}
	prior := storedControl(t, e.store, "loop-1", hitl.ControlKeyOf("slack:U0ME", "req-1"))
	require.NotNil(t, prior, "the control record was written")
	require.NotNil(t, prior.Result)
	assert.Equal(t, "req-1", prior.Result.RequestID)
	assert.Equal(t, "slack:U0ME", prior.By)

	var seen *hitl.Run
	again, err := e.store.UpdateRun(ctx, "loop-1", func(run *hitl.Run) (hitl.RunUpdate, error) {
		seen = run
		c := *run
		c.Control.Status = steer.RunRunning
		return hitl.RunUpdate{Run: &c}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, got, seen, "fn gets the stored run")
	assert.Greater(t, again.Version, got.Version, "each change grows the version")
	assert.Equal(t, steer.RunRunning, again.Control.Status)
}

func testUpdateRunRefused(t *testing.T, e *env) {
	ctx := context.Background()
	putRun(t, e.store, "loop-1", steer.RunRunning)
	before := lastSeq(t, e.store)
	want := errors.New("refused by fn")
	_, err := e.store.UpdateRun(ctx, "loop-1", func(run *hitl.Run) (hitl.RunUpdate, error) {
		c := *run
		c.Control.Status = steer.RunCancelled
		return hitl.RunUpdate{Run: &c, Events: []*hitl.Event{{Type: hitl.EventControl, RunID: "loop-1", At: t0}},
			Control: &hitl.ControlRecord{RequestID: "req-x", RunID: "loop-1", At: t0, Result: &steer.ControlMessage{Type: steer.MessageResult}}}, want
	})
	assert.Same(t, want, err, "fn's error is returned as it is")
	got, err := e.store.Run(ctx, "loop-1")
	require.NoError(t, err)
	assert.Equal(t, steer.RunRunning, got.Control.Status, "the run is as it was")
	assert.Equal(t, before, lastSeq(t, e.store), "no event")
	assert.Nil(t, storedControl(t, e.store, "loop-1", hitl.ControlKeyOf("", "req-x")), "no control record")

	_, err = e.store.UpdateRun(ctx, "loop-new", func(*hitl.Run) (hitl.RunUpdate, error) {
		return hitl.RunUpdate{Run: &hitl.Run{ID: "loop-new", CreatedAt: t0}}, want
	})
	assert.Same(t, want, err)
	_, err = e.store.Run(ctx, "loop-new")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "no run is created")
}

func testUpdateRunConcurrent(t *testing.T, e *env) {
	ctx := context.Background()
	putRun(t, e.store, "loop-1", steer.RunRunning)
	const n = 20
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := e.store.UpdateRun(ctx, "loop-1", func(run *hitl.Run) (hitl.RunUpdate, error) {
				c := *run
				c.Control.Iter++
				return hitl.RunUpdate{Run: &c, Events: []*hitl.Event{{Type: hitl.EventControl, RunID: "loop-1", At: t0}}}, nil
			})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	got, err := e.store.Run(ctx, "loop-1")
	require.NoError(t, err)
	assert.Equal(t, n, got.Control.Iter, "each update read the one before it")
	assert.Len(t, events(t, e.store, 0), n, "and each wrote its event once")
}

func testUpdateRunEventsOnly(t *testing.T, e *env) {
	ctx := context.Background()
	run := putRun(t, e.store, "loop-1", steer.RunPaused)
	stored, err := e.store.UpdateRun(ctx, "loop-1", func(*hitl.Run) (hitl.RunUpdate, error) {
		return hitl.RunUpdate{Events: []*hitl.Event{{Type: hitl.EventControl, RunID: "loop-1", At: t0}}}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, run, stored, "the run as it is")
	evs := events(t, e.store, 0)
	require.Len(t, evs, 1)
	assert.Equal(t, steer.RunPaused, evs[0].Status)

	none, err := e.store.UpdateRun(ctx, "loop-none", func(run *hitl.Run) (hitl.RunUpdate, error) {
		assert.Nil(t, run, "fn gets nil for a run there is none of")
		return hitl.RunUpdate{Events: []*hitl.Event{{Type: hitl.EventControl, RunID: "loop-none", At: t0}}}, nil
	})
	require.NoError(t, err)
	assert.Nil(t, none, "there is still none")
	assert.Len(t, events(t, e.store, 0), 2, "its event is written")
	_, err = e.store.Run(ctx, "loop-none")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
}

func testRunsPaging(t *testing.T, e *env) {
	ctx := context.Background()
	var want []string
	for i := range 25 {
		id := fmt.Sprintf("loop-%02d", i)
		status := steer.RunRunning
		if i%5 == 4 {
			status = steer.RunDone
		}
		putRun(t, e.store, id, status)
		want = append(want, id)
	}
	page := func(active bool, limit int, cursor string) hitl.RunPage {
		t.Helper()
		p, err := e.store.Runs(ctx, active, limit, cursor)
		require.NoError(t, err)
		return p
	}
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 20, "paging ends")
		p := page(false, 7, cursor)
		assert.LessOrEqual(t, len(p.Runs), 7, "up to the limit")
		for _, r := range p.Runs {
			got = append(got, r.ID)
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	assert.Equal(t, want, got, "every run once, in id order")
	var active []string
	for _, r := range page(true, 100, "").Runs {
		active = append(active, r.ID)
	}
	assert.Len(t, active, 20, "active ones only")
	assert.NotContains(t, active, "loop-04")
	first := page(false, 1, "")
	require.Len(t, first.Runs, 1)
	require.NotEmpty(t, first.NextCursor)
	next := page(false, 1, first.NextCursor)
	require.Len(t, next.Runs, 1)
	assert.Equal(t, "loop-01", next.Runs[0].ID, "the cursor continues after its page")
	assert.Len(t, page(false, 0, "").Runs, 25, "limit 0: the default page")
}

func testPolicyState(t *testing.T, st hitl.PolicyStore) {
	ctx := context.Background()
	got, err := st.PolicyState(ctx)
	require.NoError(t, err)
	assert.Nil(t, got, "none stored")
	at := t0
	first := &hitl.PolicyState{Rules: []hitl.Rule{{Name: "deploys", OpType: hitl.OpShell, Resource: "deploy *", Effect: hitl.EffectAsk,
		Approvers: []string{"U0ALICE"}, Quorum: 1}}, FileHash: "h1", UpdatedBy: "slack:U0ALICE", UpdatedAt: &at}
	require.NoError(t, st.PutPolicyState(ctx, first))
	got, err = st.PolicyState(ctx)
	require.NoError(t, err)
	require.NotNil(t, got)
	assert.Equal(t, first.Rules, got.Rules)
	assert.Equal(t, "h1", got.FileHash)
	assert.Equal(t, "slack:U0ALICE", got.UpdatedBy)
	require.NotNil(t, got.UpdatedAt)
	assert.True(t, at.Equal(*got.UpdatedAt))

	second := &hitl.PolicyState{Rules: []hitl.Rule{{Name: "reads", Effect: hitl.EffectAllow}}, FileHash: "h2"}
	require.NoError(t, st.PutPolicyState(ctx, second))
	got, err = st.PolicyState(ctx)
	require.NoError(t, err)
	assert.Equal(t, second.Rules, got.Rules, "the last put replaces the first")
	assert.Equal(t, "h2", got.FileHash)
	assert.Empty(t, got.UpdatedBy)
}
