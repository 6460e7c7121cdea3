package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
)

// TestMigrateListed: a database of schema version 8 listed a pending
// question for its assignees only; opening it lists the pending
// escalated questions for the people escalation added too, with their
// deadlines, and leaves settled ones out.
func TestMigrateListed(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	db, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	mk := func(id string, minutes int, status hitl.Status, assignees []string, escalated ...string) {
		t.Helper()
		q := &hitl.Question{ID: id, RunID: "run-1", Question: "Q\u0000? \\u0000 \"escalatedTo\":[\"U0X\"]", Metadata: map[string]any{"escalatedTo": []string{"U0X"}}, Asker: "api:ci", Status: status, Type: hitl.Blocking,
			ResponseType: hitl.TextResponse, CreatedAt: t0, Assignees: assignees, EscalatedTo: escalated}
		if minutes >= 0 {
			at := t0.Add(time.Duration(minutes) * time.Minute)
			q.TimeoutAt = &at
		}
		if _, _, err := db.CreateQuestion(ctx, q, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	mk("q_assigned", 30, hitl.StatusPending, []string{"U0A"}, "U0ESC", "S0OPS")
	mk("q_open", 10, hitl.StatusPending, nil, "U0ESC")
	mk("q_never", -1, hitl.StatusPending, nil, "U0ESC")
	mk("q_settled", 5, hitl.StatusCancelled, []string{"U0A"}, "U0ESC")
	mk("q_plain", 20, hitl.StatusPending, []string{"U0ESC"})
	// Turn the database into what version 8 held: assignees only.
	for _, sql := range []string{`DELETE FROM assignees WHERE question_id <> 'q_plain' AND assignee <> 'U0A'`,
		`UPDATE hitl_schema_version SET version = 8`} {
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
		{hitl.QuestionFilter{ByDeadline: true, Queue: []string{"U0ESC"}}, []string{"q_open", "q_plain", "q_assigned", "q_never"}},
		{hitl.QuestionFilter{Queue: []string{"U0B", "S0OPS"}}, []string{"q_assigned"}},
		{hitl.QuestionFilter{ByDeadline: true, Assignee: "U0ESC"}, []string{"q_open", "q_plain", "q_assigned", "q_never"}},
		{hitl.QuestionFilter{Assignee: "U0A"}, []string{"q_assigned"}},
		{hitl.QuestionFilter{Assignee: "U0X"}, nil}, // named in the text and metadata only
		{hitl.QuestionFilter{ByDeadline: true, Unassigned: true}, []string{"q_open", "q_never"}},
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
