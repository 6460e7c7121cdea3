package hitl_test

import (
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

func TestOperationDiffsValidate(t *testing.T) {
	ok := hitl.FileDiff{Path: "src/billing.go", Change: hitl.FileModify, Added: 3, Removed: 1, Unified: "--- a\n+++ b\n"}
	tests := []struct {
		name  string
		diffs []hitl.FileDiff
		err   string // "" valid
	}{
		{name: "no diffs are valid"},
		{name: "a file's diff is valid", diffs: []hitl.FileDiff{ok}},
		{name: "a diff of exactly the cap is valid", diffs: []hitl.FileDiff{{Path: "a", Change: hitl.FileNew, Unified: strings.Repeat("+\n", hitl.MaxDiffBytes/2)}}},
		{name: "diffs over the cap together are refused", diffs: []hitl.FileDiff{{Path: "a", Change: hitl.FileNew, Unified: strings.Repeat("+\n", hitl.MaxDiffBytes/4)}, {Path: "b", Change: hitl.FileNew, Unified: strings.Repeat("+\n", hitl.MaxDiffBytes/4+1)}}, err: "at most 262144"},
		{name: "a diff without a path is refused", diffs: []hitl.FileDiff{{Change: hitl.FileNew}}, err: "diffs[0]: path is required"},
		{name: "an unknown change is refused", diffs: []hitl.FileDiff{{Path: "a", Change: "rename"}}, err: `change "rename" is invalid`},
		{name: "negative counts are refused", diffs: []hitl.FileDiff{{Path: "a", Change: hitl.FileModify, Added: -1}}, err: "cannot be negative"},
		{name: "too many files are refused", diffs: make([]hitl.FileDiff, 501), err: "501 files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := hitl.Operation{Type: hitl.OpFileWrite, Description: "Edit src/billing.go", Resource: "src/billing.go", Diffs: tt.diffs}
			err := op.Validate()
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("Validate = %v, want an error with %q", err, tt.err)
			case tt.err != "" && fault.Code(err) != fault.EINVALID:
				t.Fatalf("code %s, want invalid", fault.Code(err))
			}
		})
	}
}

func TestDiffStatAddsUpFiles(t *testing.T) {
	op := hitl.Operation{Diffs: []hitl.FileDiff{{Added: 3, Removed: 1}, {Added: 2}}}
	if a, r := op.DiffStat(); a != 5 || r != 1 {
		t.Fatalf("DiffStat = +%d -%d, want +5 -1", a, r)
	}
}
