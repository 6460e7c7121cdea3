package policy_test

import (
	"strings"
	"testing"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/policy"
)

func TestOperationDiffsValidate(t *testing.T) {
	ok := policy.FileDiff{Path: "src/billing.go", Change: policy.FileModify, Added: 3, Removed: 1, Unified: "--- a\n+++ b\n"}
	tests := []struct {
		name  string
		diffs []policy.FileDiff
		err   string // "" valid
	}{
		{name: "no diffs are valid"},
		{name: "a file's diff is valid", diffs: []policy.FileDiff{ok}},
		{name: "a diff of exactly the cap is valid", diffs: []policy.FileDiff{{Path: "a", Change: policy.FileNew, Unified: strings.Repeat("+\n", policy.MaxDiffBytes/2)}}},
		{name: "diffs over the cap together are refused", diffs: []policy.FileDiff{{Path: "a", Change: policy.FileNew, Unified: strings.Repeat("+\n", policy.MaxDiffBytes/4)}, {Path: "b", Change: policy.FileNew, Unified: strings.Repeat("+\n", policy.MaxDiffBytes/4+1)}}, err: "at most 262144"},
		{name: "a diff without a path is refused", diffs: []policy.FileDiff{{Change: policy.FileNew}}, err: "diffs[0]: path is required"},
		{name: "an unknown change is refused", diffs: []policy.FileDiff{{Path: "a", Change: "rename"}}, err: `change "rename" is invalid`},
		{name: "negative counts are refused", diffs: []policy.FileDiff{{Path: "a", Change: policy.FileModify, Added: -1}}, err: "cannot be negative"},
		{name: "too many files are refused", diffs: make([]policy.FileDiff, 501), err: "501 files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := policy.Operation{Type: policy.OpFileWrite, Description: "Edit src/billing.go", Resource: "src/billing.go", Diffs: tt.diffs}
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
	op := policy.Operation{Diffs: []policy.FileDiff{{Added: 3, Removed: 1}, {Added: 2}}}
	if a, r := op.DiffStat(); a != 5 || r != 1 {
		t.Fatalf("DiffStat = +%d -%d, want +5 -1", a, r)
	}
}
