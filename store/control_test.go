package store

import (
	"testing"

	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSteeringCommits counts the bbolt commits (transaction ids) of each
// steering step on the file: a pause and a resume are one commit each
// (the ACK with the command), a held checkpoint woken by a plain resume
// none, a retried request none.
func TestSteeringCommits(t *testing.T) {
	db := openTestDB(t)
	svc := newService(db, newClock())
	agent, ops := as("api:agent"), as("admin:ops")
	report := steer.StateEvent{RunID: "loop-1", Stack: []steer.StackEntry{{ID: "loop-1", Iter: 1}}}
	_, err := svc.Runs.Checkpoint(agent, report)
	require.NoError(t, err)
	control := func(id string, c steer.Command) int {
		t.Helper()
		before := lastTxID(t, db)
		msgs, err := svc.Runs.Control(ops, steer.NewRequest(id, c, "loop-1", t0, steer.ControlPayload{}))
		require.NoError(t, err)
		require.Equal(t, steer.ResultSuccess, msgs[len(msgs)-1].Payload.Status)
		return lastTxID(t, db) - before
	}
	assert.Equal(t, 1, control("req-pause", steer.CommandPause), "pause: one commit")
	assert.Equal(t, 0, control("req-pause", steer.CommandPause), "its retry: none")
	report.Stack[0].Iter = 2
	cp, err := svc.Runs.Checkpoint(agent, report)
	require.NoError(t, err)
	require.Equal(t, steer.RunPaused, cp.Status)
	assert.Equal(t, 1, control("req-resume", steer.CommandResume), "resume: one commit")
	run, err := svc.Runs.WaitRun(ops, "loop-1", cp.Version)
	require.NoError(t, err)
	before := lastTxID(t, db)
	cp, err = svc.Runs.Woken(agent, report, run)
	require.NoError(t, err)
	assert.Equal(t, steer.RunRunning, cp.Status)
	assert.Equal(t, 0, lastTxID(t, db)-before, "the woken checkpoint: none")
}
