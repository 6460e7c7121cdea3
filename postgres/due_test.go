package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
)

// TestMigrateDueLists: a database of schema version 4 had no lists by
// deadline; opening it adds the indexes and fills each assignee entry's
// deadline from its question, so a person's queue reads by deadline at
// once.
func TestMigrateDueLists(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	db, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	mk := func(id string, minutes int, assignees ...string) {
		t.Helper()
		q := &hitl.Question{ID: id, RunID: "run-1", Question: "Q?", Asker: "api:ci", Status: hitl.StatusPending, Type: hitl.Blocking,
			ResponseType: hitl.TextResponse, CreatedAt: t0, Assignees: assignees}
		if minutes >= 0 {
			at := t0.Add(time.Duration(minutes) * time.Minute)
			q.TimeoutAt = &at
		}
		if _, _, err := db.CreateQuestion(ctx, q, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	mk("q_later", 30, "U0ME")
	mk("q_never", -1, "U0ME", "S0OPS")
	mk("q_soon", 5, "S0OPS")
	mk("q_open", 10)
	// Turn the database into what version 4 held.
	for _, sql := range []string{`DROP INDEX questions_pending_by_due`, `DROP INDEX questions_unassigned_by_due`,
		`DROP INDEX questions_run_by_due`, `DROP INDEX questions_type_by_due`,
		`ALTER TABLE assignees DROP COLUMN due_ns`, `DROP TABLE mail`, `DROP TABLE envelopes`, `DROP TABLE rate_buckets`, // versions 6 to 8
		`UPDATE hitl_schema_version SET version = 4`} {
		if _, err := db.pool.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	_ = db.Close()

	db, err = Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct {
		f    hitl.QuestionFilter
		want []string
	}{
		{hitl.QuestionFilter{ByDeadline: true, Queue: []string{"U0ME", "S0OPS"}}, []string{"q_soon", "q_later", "q_never"}},
		{hitl.QuestionFilter{ByDeadline: true, Queue: []string{"U0ME"}, Unassigned: true}, []string{"q_open", "q_later", "q_never"}},
		{hitl.QuestionFilter{ByDeadline: true, Assignee: "S0OPS"}, []string{"q_soon", "q_never"}},
		{hitl.QuestionFilter{ByDeadline: true}, []string{"q_soon", "q_open", "q_later", "q_never"}},
	} {
		page, err := db.Questions(ctx, c.f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, q := range page.Questions {
			got = append(got, q.ID)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v: got %v, want %v", c.f, got, c.want)
		}
	}
}
