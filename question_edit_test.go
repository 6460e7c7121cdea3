package hitl_test

import (
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// TestCheckEdit is the table of who may edit what before approving: each
// row fails when its rule is removed.
func TestCheckEdit(t *testing.T) {
	approval := func(op *hitl.Operation, quorum int) *hitl.Question {
		return &hitl.Question{Type: hitl.Approval, ResponseType: hitl.ApprovalResponse, Operation: op, Quorum: quorum}
	}
	shell := func() *hitl.Operation { return &hitl.Operation{Type: hitl.OpShell, Resource: "rm -rf build"} }
	approve := func(edited string, always bool) *hitl.Response {
		return &hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Approve, Edited: edited, Always: always}
	}
	noEdit := shell()
	noEdit.NoEdit = true
	spawn := &hitl.Operation{Type: hitl.OpSpawnAgent, Resource: "general-purpose"}
	write := func() *hitl.Operation {
		return &hitl.Operation{Type: hitl.OpFileWrite, Resource: "/w/notes.md", Content: "one\n"}
	}
	content := func(path, text string) *hitl.Response {
		return &hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Approve, Edited: path, EditedContent: text}
	}
	noContent := write()
	noContent.Content = ""
	noEditWrite := write()
	noEditWrite.NoEdit = true
	for _, tc := range []struct {
		name string
		q    *hitl.Question
		r    *hitl.Response
		want string // the error's message holds it; "" accepts
	}{
		{"an edit of a command", approval(shell(), 0), approve("rm -rf build/tmp", false), ""},
		{"a question that is not about an operation", &hitl.Question{Type: hitl.Approval, ResponseType: hitl.ApprovalResponse}, approve("x", false), "only an approval of an operation"},
		{"an operation several people approve", approval(shell(), 2), approve("rm -rf build/tmp", false), "needs 2 approvals cannot be edited"},
		{"an operation the agent cannot run with other input", approval(noEdit, 0), approve("rm -rf build/tmp", false), "cannot run this shell operation with other input"},
		{"which agent to start is not an input", approval(spawn, 0), approve("other-agent", false), "cannot be edited"},
		{"always allow is never of an edit", approval(shell(), 0), approve("rm -rf build/tmp", true), "without 'always'"},
		{"an edit too long", approval(shell(), 0), approve(strings.Repeat("x", hitl.MaxContextLen+1), false), "longer than"},
		{"an edit of a file change's content", approval(write(), 0), content("", "two\n"), ""},
		{"an edit of a file change's path and content", approval(write(), 0), content("/w/other.md", "two\n"), ""},
		{"a file change without editable content", approval(noContent, 0), content("", "two\n"), "no content to edit"},
		{"a command has no content", approval(shell(), 0), content("", "two\n"), "no content to edit"},
		{"content of an operation the agent cannot run with other input", approval(noEditWrite, 0), content("", "two\n"), "cannot run this file_write operation"},
		{"content of an operation several people approve", approval(write(), 2), content("", "two\n"), "needs 2 approvals"},
		{"always allow is never of an edited content", approval(write(), 0), &hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Approve, EditedContent: "two\n", Always: true}, "without 'always'"},
		{"an edited content too long", approval(write(), 0), content("", strings.Repeat("x", hitl.MaxContentLen+1)), "longer than"},
		{"a denial edits nothing", approval(noEdit, 0), &hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Deny, Edited: "x"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.q.CheckEdit(tc.r)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || fault.Code(err) != fault.EINVALID || !strings.Contains(fault.Message(err), tc.want) {
				t.Fatalf("got %v, want invalid: …%s…", err, tc.want)
			}
		})
	}
}
