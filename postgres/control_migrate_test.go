package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/steer"
)

// undoVersion10 turns the control table back into what version 9 held.
var undoVersion10 = []string{
	`ALTER TABLE control DROP CONSTRAINT control_pkey`,
	`DROP INDEX control_by_age`,
	`ALTER TABLE control DROP COLUMN principal`,
	`ALTER TABLE control ADD PRIMARY KEY (request_id)`,
	`CREATE INDEX control_by_age ON control (at_ns, request_id)`,
}

// TestMigrateControl: a database of schema version 9 held control records
// under their request id alone; opening it holds each under its
// principal's key (the local principals of a tokenless server as one),
// so that the principal's retry finds its record, another principal's
// request with the same id finds none and stores its own beside it, and
// prune deletes them by key.
func TestMigrateControl(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	db := openDB(t, url)
	put := func(db *DB, rec hitl.ControlRecord) {
		t.Helper()
		if _, err := db.UpdateRun(ctx, rec.RunID, func(*hitl.Run) (hitl.RunUpdate, error) { return hitl.RunUpdate{Control: &rec}, nil }); err != nil {
			t.Fatal(err)
		}
	}
	result := &steer.ControlMessage{Type: steer.MessageResult, RequestID: "req-1", Command: steer.CommandPause,
		Payload: steer.ControlPayload{Status: steer.ResultSuccess, Message: "Loop \u0000paused \\u0000 \"by\":\"x\""}}
	put(db, hitl.ControlRecord{RequestID: "req-1", RunID: "loop-1", Command: steer.CommandPause, By: "api:ops", At: migrationT0, Result: result})
	put(db, hitl.ControlRecord{RequestID: "req-2", RunID: "loop-1", Command: steer.CommandPause, By: "local:alice", At: migrationT0})
	// Turn the database into what version 9 held: keyed by request id.
	db = downgrade(t, db, url, append(undoVersions10To12(), `UPDATE hitl_schema_version SET version = 9`)...)
	stored := func(key hitl.ControlKey) *hitl.ControlRecord {
		t.Helper()
		var got *hitl.ControlRecord
		if _, err := db.SteerRun(ctx, "loop-1", key, func(_ *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error) {
			got = prior
			return hitl.RunUpdate{}, nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := stored(hitl.ControlKeyOf("api:ops", "req-1")); got == nil || got.Result == nil || got.Result.Payload.Message != result.Payload.Message {
		t.Errorf("api:ops's req-1 after the migration: %+v, want its record with its RESULT", got)
	}
	if got := stored(hitl.ControlKeyOf("api:other", "req-1")); got != nil {
		t.Errorf("api:other's req-1 found %+v: another principal's request is new", got)
	}
	if got := stored(hitl.ControlKeyOf("local:bob", "req-2")); got == nil || got.By != "local:alice" {
		t.Errorf("local:bob's req-2: %+v, want local:alice's record (one local person)", got)
	}
	late := migrationT0.Add(2 * time.Hour)
	put(db, hitl.ControlRecord{RequestID: "req-1", RunID: "loop-1", Command: steer.CommandResume, By: "api:other", At: late})
	if got := stored(hitl.ControlKeyOf("api:other", "req-1")); got == nil || got.Command != steer.CommandResume {
		t.Errorf("api:other's own req-1: %+v", got)
	}
	if n, err := db.Prune(ctx, migrationT0.Add(time.Hour), 10); err != nil || n != 2 {
		t.Errorf("prune: %d, %v; want the two records of migrationT0", n, err)
	}
	if stored(hitl.ControlKeyOf("api:ops", "req-1")) != nil || stored(hitl.ControlKeyOf("api:other", "req-1")) == nil {
		t.Error("prune deletes api:ops's req-1 and keeps api:other's")
	}
}
