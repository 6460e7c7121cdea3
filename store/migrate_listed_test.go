package store

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestMigrateListed: a version 6 file listed a pending question for its
// assignees only; opening it lists the pending questions that were
// escalated for the people escalation added too (by creation time and by
// deadline), and leaves settled ones out.
func TestMigrateListed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := Open(path)
	require.NoError(t, err)
	svc := newService(db, newClock())
	assigned := ask(t, svc, "run-1", 30)
	open := ask(t, svc, "run-1", 10)
	settled := ask(t, svc, "run-2", 20)
	plain := ask(t, svc, "run-2", 40)
	escalate := func(id string, assignees []string, to ...string) {
		t.Helper()
		_, err := db.UpdateQuestion(ctx, id, func(q *hitl.Question) (*hitl.Event, error) {
			q.Assignees, q.EscalatedTo = assignees, to
			return nil, nil
		})
		require.NoError(t, err)
	}
	escalate(assigned.ID, []string{"U0A"}, "U0ESC", "S0OPS")
	escalate(open.ID, nil, "U0ESC")
	escalate(settled.ID, []string{"U0A"}, "U0ESC")
	escalate(plain.ID, []string{"U0A"})
	_, err = svc.Questions.Answer(as("local"), settled.ID, hitl.Response{Value: "ok"})
	require.NoError(t, err)
	// Turn the file into what version 6 wrote: the escalated people's
	// entries were never there.
	db = reopenAs(t, db, 6, func(tx *bolt.Tx) error {
		for _, id := range []string{assigned.ID, open.ID} {
			q, err := getQuestion(tx, id)
			if err != nil {
				return err
			}
			old := q.Clone()
			old.EscalatedTo = nil
			was := map[string]bool{}
			for _, e := range indexOf(old) {
				was[string(e.bucket)+"\x00"+string(e.key)] = true
			}
			dropped := 0
			for _, e := range indexOf(q) {
				if !was[string(e.bucket)+"\x00"+string(e.key)] {
					require.True(t, bytes.Equal(e.bucket, bucketByAssignee) || bytes.Equal(e.bucket, bucketByDueList), "only assignee lists change: %s", e.bucket)
					if err := tx.Bucket(e.bucket).Delete(e.key); err != nil {
						return err
					}
					dropped++
				}
			}
			require.NotZero(t, dropped, "question %s had entries to drop", id)
		}
		return nil
	}) // checked on cleanup: every index entry as indexOf says, both ways
	list := func(f hitl.QuestionFilter) []string { t.Helper(); return listed(t, db, f) }
	require.Equal(t, []string{assigned.ID, open.ID}, list(hitl.QuestionFilter{Assignee: "U0ESC"}))
	require.Equal(t, []string{open.ID, assigned.ID}, list(hitl.QuestionFilter{Assignee: "U0ESC", ByDeadline: true}))
	require.Equal(t, []string{assigned.ID}, list(hitl.QuestionFilter{Queue: []string{"U0B", "S0OPS"}}), "a group escalation added")
	require.Equal(t, []string{open.ID, assigned.ID}, list(hitl.QuestionFilter{Queue: []string{"U0ESC"}, ByDeadline: true}))
	require.Equal(t, []string{assigned.ID, plain.ID}, list(hitl.QuestionFilter{Assignee: "U0A"}), "assignees keep theirs")
	require.Equal(t, []string{open.ID}, list(hitl.QuestionFilter{Unassigned: true}), "an escalated question without assignees stays unassigned")
}
