package postgres

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
)

// TestMigrateOpenRuns: a database of schema version 9 marked running and
// paused runs active only; opening it marks the runs that wait on a person
// (a pending question they wait on, not ended) too, and no other.
func TestMigrateOpenRuns(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	db := openDB(t, url)
	createDue(t, db, &hitl.Question{ID: "q_waits", Question: "Which DB?", Status: hitl.StatusPending}, 30) // run-1 waits on it
	told := &hitl.Question{ID: "q_told", RunID: "run-2", Question: "FYI \"waitingOn\"", Status: hitl.StatusAnswered, Asker: "api:ci",
		Type: hitl.Blocking, ResponseType: hitl.TextResponse, CreatedAt: migrationT0}
	if _, _, err := db.CreateQuestion(ctx, told, nil, nil); err != nil { // run-2 waits on nothing
		t.Fatal(err)
	}
	// Turn the database into what version 10 held: a run of questions only
	// was never active.
	db = downgrade(t, db, url, append(undoVersion12, `UPDATE runs SET active = false`, `UPDATE hitl_schema_version SET version = 10`)...)
	page, err := db.Runs(ctx, true, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range page.Runs {
		ids = append(ids, r.ID)
	}
	if len(ids) != 1 || ids[0] != "run-1" {
		t.Fatalf("open runs after the migration: %v, want [run-1]", ids)
	}
}
