package blocks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
)

// TestApprovalShowsItsGrant: what a command line may do when it runs is
// shown with the decision people make.
func TestApprovalShowsItsGrant(t *testing.T) {
	q := &hitl.Question{ID: "q_grant", Question: "Run git status", Type: hitl.Approval, Status: hitl.StatusPending,
		Operation: &hitl.Operation{Type: hitl.OpShell, Resource: "git status"},
		RunGrant:  &hitl.CommandGrant{Exec: []string{"git"}, Write: []string{}}}
	b, err := json.Marshal(QuestionMessage(q, opts).Blocks)
	if err != nil {
		t.Fatal(err)
	}
	if want := "*When it runs:* may run git; may write nothing; no network"; !strings.Contains(string(b), want) {
		t.Errorf("the approval does not show %q: %s", want, b)
	}
	q.RunGrant = nil
	b, _ = json.Marshal(QuestionMessage(q, opts).Blocks)
	if strings.Contains(string(b), "When it runs") {
		t.Errorf("a question without a grant shows one: %s", b)
	}
}
