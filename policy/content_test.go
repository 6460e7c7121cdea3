package policy_test

import (
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/policy"
)

// TestOperationContent: a file change's editable new text is bounded, is
// of file changes only, and is editable only where the operation is.
func TestOperationContent(t *testing.T) {
	write := func(content string) hitl.Operation {
		return hitl.Operation{Type: hitl.OpFileWrite, Description: "Write a", Resource: "/w/a", Content: content}
	}
	for _, tc := range []struct {
		name     string
		op       hitl.Operation
		refused  string // the error's message holds it; "" accepts
		editable bool
	}{
		{"a file change's new text", write("one\n"), "", true},
		{"no new text", write(""), "", false},
		{"too long", write(strings.Repeat("x", hitl.MaxContentLen+1)), "content is", false},
		{"not a file change", hitl.Operation{Type: hitl.OpShell, Description: "Run ls", Resource: "ls", Content: "x"}, "file_write only", false},
		{"the agent cannot take an edit", func() hitl.Operation { o := write("one\n"); o.NoEdit = true; return o }(), "", false},
		{"no path", func() hitl.Operation { o := write("one\n"); o.Resource = ""; return o }(), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := policy.ValidateOperation(&tc.op)
			if tc.refused == "" && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if tc.refused != "" && (fault.Code(err) != fault.EINVALID || !strings.Contains(fault.Message(err), tc.refused)) {
				t.Fatalf("got %v, want invalid: …%s…", err, tc.refused)
			}
			if got := tc.op.ContentEditable(); tc.refused == "" && got != tc.editable {
				t.Fatalf("ContentEditable() = %v, want %v", got, tc.editable)
			}
		})
	}
}
