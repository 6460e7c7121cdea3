package postgres

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
)

// undoVersion13 turns the database back into what version 12 held: no
// rollups.
var undoVersion13 = []string{`DROP TABLE rollups`, `DROP TABLE rollup_runs`}

// TestMigrateRollups: a version 12 database has no rollups; opening it
// builds them from the questions and the log, equal to those its writes
// kept.
func TestMigrateRollups(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	db := openDB(t, url)
	at := migrationT0
	for i := range 30 {
		at = at.Add(time.Duration(i) * 97 * time.Second)
		q := &hitl.Question{ID: fmt.Sprintf("q_%02d", i), RunID: []string{"build", "deploy", "lint"}[i%3], Question: "Go on?",
			Status: hitl.StatusPending, Asker: "api:ci", Type: []hitl.QuestionType{hitl.Blocking, hitl.Approval}[i%2],
			ResponseType: hitl.TextResponse, CreatedAt: at}
		if _, _, err := db.CreateQuestion(ctx, q, nil, nil); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			continue
		}
		_, err := db.UpdateQuestion(ctx, q.ID, func(q *hitl.Question) (*hitl.Event, error) {
			done := at.Add(time.Duration(i*i) * time.Second)
			q.Status, q.RespondedAt = []hitl.Status{hitl.StatusAnswered, hitl.StatusAnswered, hitl.StatusTimeout}[i%3], &done
			return &hitl.Event{Type: hitl.EventQuestionAnswered, QuestionID: q.ID, RunID: q.RunID, At: done}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 {
			if err := db.AppendEvent(ctx, &hitl.Event{Type: hitl.EventQuestionEscalated, RunID: "build", At: at}); err != nil {
				t.Fatal(err)
			}
		}
	}
	read := func(db *DB) map[time.Duration][]*hitl.Rollup {
		t.Helper()
		out := map[time.Duration][]*hitl.Rollup{}
		for _, span := range hitl.RollupSpans {
			rs, err := db.Rollups(ctx, span, migrationT0.Add(-time.Hour), migrationT0.Add(100*time.Hour))
			if err != nil || len(rs) == 0 {
				t.Fatalf("rollups of %v: %d, %v", span, len(rs), err)
			}
			out[span] = rs
		}
		return out
	}
	kept := read(db)
	db = downgrade(t, db, url, append(undoVersion13, `UPDATE hitl_schema_version SET version = 12`)...)
	built := read(db)
	if !reflect.DeepEqual(kept, built) {
		t.Fatalf("rollups built by the migration differ from those kept:\nkept  %+v\nbuilt %+v", kept, built)
	}
	// The runs' last question times were built too: one more question of
	// build moves build's count to its hour.
	q := &hitl.Question{ID: "q_later", RunID: "build", Question: "Go on?", Status: hitl.StatusPending, Asker: "api:ci",
		Type: hitl.Blocking, ResponseType: hitl.TextResponse, CreatedAt: at.Add(5 * time.Hour)}
	if _, _, err := db.CreateQuestion(ctx, q, nil, nil); err != nil {
		t.Fatal(err)
	}
	runs := 0
	for _, r := range read(db)[time.Hour] {
		if r.Runs < 0 {
			t.Fatalf("rollup %+v counts fewer than no runs", r)
		}
		runs += r.Runs
	}
	if runs != 3 {
		t.Fatalf("runs over the hours: %d, want 3", runs)
	}
}
