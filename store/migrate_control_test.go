package store

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestMigrateControl: a version 7 file held control records under their
// request id alone; opening it holds each under its principal's key, so
// that the principal's retry still gets the cached RESULT, another
// principal's request with the same id is new, and control_age matches
// (checked on cleanup).
func TestMigrateControl(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "hitl.db"))
	require.NoError(t, err)
	clock := newClock()
	svc := newService(db, clock)
	report := steer.StateEvent{RunID: "loop-1", Stack: []steer.StackEntry{{ID: "loop-1", Iter: 1}}}
	_, err = svc.Runs.Checkpoint(as("api:agent"), report)
	require.NoError(t, err)
	control := func(by, id string, c steer.Command, pl steer.ControlPayload) []steer.ControlMessage {
		t.Helper()
		msgs, err := svc.Runs.Control(as(by), steer.NewRequest(id, c, "loop-1", clock.Now(), pl))
		require.NoError(t, err)
		return msgs
	}
	paused := control("admin:ops", "req-pause", steer.CommandPause, steer.ControlPayload{})
	require.Len(t, paused, 2)
	require.Equal(t, steer.ResultSuccess, paused[1].Payload.Status)
	redirected := control("local:alice", "req-local", steer.CommandRedirect, steer.ControlPayload{Instruction: "stop"})
	require.Len(t, redirected, 2)
	// Turn the file into what version 7 wrote: records under their
	// request id, control_age by receipt time ‖ request id.
	db = reopenAs(t, db, 7, func(tx *bolt.Tx) error {
		var recs []hitl.ControlRecord
		if err := tx.Bucket(bucketControl).ForEach(func(_, v []byte) error {
			var rec hitl.ControlRecord
			recs = append(recs, rec)
			return json.Unmarshal(v, &recs[len(recs)-1])
		}); err != nil {
			return err
		}
		require.Len(t, recs, 2)
		for _, name := range [][]byte{bucketControl, bucketControlAge} {
			require.NoError(t, tx.DeleteBucket(name))
			_, err := tx.CreateBucket(name)
			require.NoError(t, err)
		}
		for _, rec := range recs {
			data, err := json.Marshal(rec)
			require.NoError(t, err)
			require.NoError(t, tx.Bucket(bucketControl).Put([]byte(rec.RequestID), data))
			require.NoError(t, tx.Bucket(bucketControlAge).Put(timeIDKey(rec.At, rec.RequestID), []byte{}))
		}
		return nil
	})
	clock.Add(time.Minute)
	svc = newService(db, clock)
	again := control("admin:ops", "req-pause", steer.CommandPause, steer.ControlPayload{})
	require.Len(t, again, 1, "the same principal's retry: the cached RESULT alone")
	assert.Equal(t, paused[1], again[0])
	other := control("admin:other", "req-pause", steer.CommandResume, steer.ControlPayload{})
	require.Len(t, other, 2, "another principal's request with the id is new")
	assert.Equal(t, steer.ResultSuccess, other[1].Payload.Status)
	assert.Contains(t, other[1].Payload.Message, "resumed")
	local := control("local:bob", "req-local", steer.CommandRedirect, steer.ControlPayload{Instruction: "stop"})
	require.Len(t, local, 1, "a tokenless server's local principals are one")
	assert.Equal(t, redirected[1], local[0])
}
