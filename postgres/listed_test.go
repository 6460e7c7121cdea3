package postgres

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
)

// TestMigrateListed: a database of schema version 8 listed a pending
// question for its assignees only; opening it lists the pending
// escalated questions for the people escalation added too, with their
// deadlines, and leaves settled ones out.
func TestMigrateListed(t *testing.T) {
	url := pgtest.DB(t)
	db := openDB(t, url)
	mk := func(id string, minutes int, status hitl.Status, assignees []string, escalated ...string) {
		t.Helper()
		createDue(t, db, &hitl.Question{ID: id, Question: "Q\u0000? \\u0000 \"escalatedTo\":[\"U0X\"]", Metadata: map[string]any{"escalatedTo": []string{"U0X"}},
			Status: status, Assignees: assignees, EscalatedTo: escalated}, minutes)
	}
	mk("q_assigned", 30, hitl.StatusPending, []string{"U0A"}, "U0ESC", "S0OPS")
	mk("q_open", 10, hitl.StatusPending, nil, "U0ESC")
	mk("q_never", -1, hitl.StatusPending, nil, "U0ESC")
	mk("q_settled", 5, hitl.StatusCancelled, []string{"U0A"}, "U0ESC")
	mk("q_plain", 20, hitl.StatusPending, []string{"U0ESC"})
	// Turn the database into what version 8 held: assignees only.
	db = downgrade(t, db, url, append(undoVersion10, `DELETE FROM assignees WHERE question_id <> 'q_plain' AND assignee <> 'U0A'`,
		`UPDATE hitl_schema_version SET version = 8`)...)
	checkLists(t, db, []listCase{
		{hitl.QuestionFilter{ByDeadline: true, Queue: []string{"U0ESC"}}, []string{"q_open", "q_plain", "q_assigned", "q_never"}},
		{hitl.QuestionFilter{Queue: []string{"U0B", "S0OPS"}}, []string{"q_assigned"}},
		{hitl.QuestionFilter{ByDeadline: true, Assignee: "U0ESC"}, []string{"q_open", "q_plain", "q_assigned", "q_never"}},
		{hitl.QuestionFilter{Assignee: "U0A"}, []string{"q_assigned"}},
		{hitl.QuestionFilter{Assignee: "U0X"}, nil}, // named in the text and metadata only
		{hitl.QuestionFilter{ByDeadline: true, Unassigned: true}, []string{"q_open", "q_never"}},
	})
}
