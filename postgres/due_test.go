package postgres

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
)

// TestMigrateDueLists: a database of schema version 4 had no lists by
// deadline; opening it adds the indexes and fills each assignee entry's
// deadline from its question, so a person's queue reads by deadline at
// once.
func TestMigrateDueLists(t *testing.T) {
	url := pgtest.DB(t)
	db := openDB(t, url)
	mk := func(id string, minutes int, assignees ...string) {
		t.Helper()
		createDue(t, db, &hitl.Question{ID: id, Question: "Q?", Status: hitl.StatusPending, Assignees: assignees}, minutes)
	}
	mk("q_later", 30, "U0ME")
	mk("q_never", -1, "U0ME", "S0OPS")
	mk("q_soon", 5, "S0OPS")
	mk("q_open", 10)
	// Turn the database into what version 4 held.
	db = downgrade(t, db, url, append(undoVersion10, `DROP INDEX questions_pending_by_due`, `DROP INDEX questions_unassigned_by_due`,
		`DROP INDEX questions_run_by_due`, `DROP INDEX questions_type_by_due`,
		`ALTER TABLE assignees DROP COLUMN due_ns`, `DROP TABLE mail`, `DROP TABLE envelopes`, `DROP TABLE rate_buckets`, // versions 6 to 8
		`UPDATE hitl_schema_version SET version = 4`)...)
	checkLists(t, db, []listCase{
		{hitl.QuestionFilter{ByDeadline: true, Queue: []string{"U0ME", "S0OPS"}}, []string{"q_soon", "q_later", "q_never"}},
		{hitl.QuestionFilter{ByDeadline: true, Queue: []string{"U0ME"}, Unassigned: true}, []string{"q_open", "q_later", "q_never"}},
		{hitl.QuestionFilter{ByDeadline: true, Assignee: "S0OPS"}, []string{"q_soon", "q_never"}},
		{hitl.QuestionFilter{ByDeadline: true}, []string{"q_soon", "q_open", "q_later", "q_never"}},
	})
}
