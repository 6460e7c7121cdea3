package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/diff"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/policy"
)

// newFileDiff is a valid diff of a new file of n lines.
func newFileDiff(path string, n int) hitl.FileDiff {
	return hitl.FileDiff{Path: path, Change: hitl.FileNew, Added: n,
		Unified: fmt.Sprintf("--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", strings.TrimPrefix(path, "/"), n) + strings.Repeat("+\n", n)}
}

// sizedDiff is a valid diff of a new file whose unified text is exactly
// size bytes.
func sizedDiff(t *testing.T, path string, size int) hitl.FileDiff {
	t.Helper()
	for n := (size - 40) / 2; n > 0; n-- {
		d := newFileDiff(path, n)
		switch gap := size - len(d.Unified); {
		case gap == 0:
			return d
		case gap == 1: // one line one byte longer
			d.Unified = strings.Replace(d.Unified, "@@\n+\n", "@@\n+x\n", 1)
			return d
		}
	}
	t.Fatalf("no diff of %d bytes", size)
	return hitl.FileDiff{}
}

func TestOperationDiffsValidate(t *testing.T) {
	const billing = "/home/dev/app/src/billing.go"
	r := diff.Unified("a"+billing, "b"+billing, "package a\n\nvar x = 1\nvar y = 2\n", "package a\n\nvar x = 2\nvar y = 2\n", 3)
	ok := hitl.FileDiff{Path: billing, Change: hitl.FileModify, Added: r.Added, Removed: r.Removed, Unified: r.Text}
	with := func(f func(d *hitl.FileDiff)) []hitl.FileDiff {
		d := ok
		f(&d)
		return []hitl.FileDiff{d}
	}
	cut, _ := diff.Cap(newFileDiff(billing, 100).Unified, 100)
	tests := []struct {
		name     string
		resource string // the operation's; billing unless set ("-" none)
		paths    map[string]string
		diffs    []hitl.FileDiff
		err      string // "" valid
	}{
		{name: "no diffs are valid"},
		{name: "a file's diff as package diff writes it is valid", diffs: []hitl.FileDiff{ok}},
		{name: "a diff without headers is valid", diffs: with(func(d *hitl.FileDiff) { d.Unified = "@@ -3 +3 @@\n-var x = 1\n+var x = 2\n" })},
		{name: "GNU diff's headers with times are valid", diffs: with(func(d *hitl.FileDiff) {
			d.Unified = "--- " + billing + "\t2026-01-01 10:00:00\n+++ " + billing + "\t2026-01-01 10:01:00\n@@ -3 +3 @@\n-var x = 1\n+var x = 2\n"
		})},
		{name: "a notebook cell's diff is valid", diffs: with(func(d *hitl.FileDiff) {
			d.Unified = "--- a" + billing + " (cell c1)\n+++ b" + billing + " (cell c1)\n@@ -1 +1 @@\n-x\n+y\n"
		})},
		{name: "a diff with a problem and no text is valid", diffs: []hitl.FileDiff{{Path: billing, Change: hitl.FileModify, Problem: "old_string is not in the file"}}},
		{name: "a cut diff may count more than its text", diffs: []hitl.FileDiff{{Path: billing, Change: hitl.FileNew, Added: 100, Unified: cut, Truncated: true}}},
		{name: "a diff cut to nothing keeps its counts", diffs: []hitl.FileDiff{{Path: billing, Change: hitl.FileNew, Added: 100, Truncated: true}}},
		{name: "a relative path that is the resource is valid", resource: "src/billing.go",
			diffs: []hitl.FileDiff{newFileDiff("src/billing.go", 2)}},
		{name: "a path whose symlinks lead to the resource is valid", resource: "/private/tmp/x", paths: map[string]string{"/tmp/x": "/private/tmp/x"},
			diffs: []hitl.FileDiff{newFileDiff("/tmp/x", 1)}},
		{name: "an operation without files takes the diffs' paths (apply_patch)", resource: "-",
			diffs: []hitl.FileDiff{newFileDiff("a.go", 1), newFileDiff("b.go", 2)}},
		{name: "a diff of exactly the cap is valid", resource: "-", diffs: []hitl.FileDiff{sizedDiff(t, "a", hitl.MaxDiffBytes)}},
		{name: "diffs over the cap together are refused", resource: "-",
			diffs: []hitl.FileDiff{sizedDiff(t, "a", hitl.MaxDiffBytes/2), sizedDiff(t, "b", hitl.MaxDiffBytes/2+1)}, err: "at most 262144"},
		{name: "a diff without a path is refused", diffs: []hitl.FileDiff{{Change: hitl.FileNew}}, err: "diffs[0]: path is required"},
		{name: "an unknown change is refused", diffs: []hitl.FileDiff{{Path: billing, Change: "rename"}}, err: `change "rename" is invalid`},
		{name: "negative counts are refused", diffs: []hitl.FileDiff{{Path: billing, Change: hitl.FileModify, Added: -1}}, err: "cannot be negative"},
		{name: "too many files are refused", diffs: make([]hitl.FileDiff, 501), err: "501 files"},

		// The diff must describe the operation.
		{name: "another file than the resource is refused", resource: "/etc/passwd",
			diffs: []hitl.FileDiff{newFileDiff("/tmp/harmless.txt", 1)}, err: `diffs[0]: path "/tmp/harmless.txt" is not the operation's file (/etc/passwd)`},
		{name: "a move to another file than the operation's is refused",
			diffs: with(func(d *hitl.FileDiff) { d.MovedTo = "/etc/passwd" }), err: `path "/etc/passwd" is not the operation's file`},
		{name: "a symlink leading elsewhere than the resource is refused", resource: "/etc/passwd", paths: map[string]string{"/tmp/x": "/tmp/y"},
			diffs: []hitl.FileDiff{newFileDiff("/tmp/x", 1)}, err: `path "/tmp/x" is not the operation's file`},
		{name: "a diff of a file outside an operation's paths is refused", resource: "-", paths: map[string]string{"/tmp/x": "/private/tmp/x"},
			diffs: []hitl.FileDiff{newFileDiff("/etc/passwd", 1)}, err: `path "/etc/passwd" is not the operation's file`},
		{name: "a --- header naming another file is refused",
			diffs: with(func(d *hitl.FileDiff) {
				d.Unified = strings.Replace(d.Unified, "--- a"+billing, "--- a/tmp/harmless.txt", 1)
			}), err: `"---" header names "a/tmp/harmless.txt"`},
		{name: "a +++ header naming another file is refused",
			diffs: with(func(d *hitl.FileDiff) {
				d.Unified = strings.Replace(d.Unified, "+++ b"+billing, "+++ b/tmp/harmless.txt", 1)
			}), err: `"+++" header names "b/tmp/harmless.txt"`},
		{name: "counts under the text's are refused", diffs: with(func(d *hitl.FileDiff) { d.Added, d.Removed = 0, 0 }), err: "counts +0 −0 disagree with the unified text (+1 −1)"},
		{name: "counts over the text's are refused", diffs: with(func(d *hitl.FileDiff) { d.Added = 5 }), err: "counts +5 −1 disagree"},
		{name: "counts without a text are refused", diffs: []hitl.FileDiff{{Path: billing, Change: hitl.FileModify, Added: 3}}, err: "counts +3 −0 disagree"},
		{name: "a cut diff counting fewer than its text is refused", diffs: []hitl.FileDiff{{Path: billing, Change: hitl.FileNew, Added: 1, Unified: cut, Truncated: true}}, err: "fewer than the unified text's"},
		{name: "text that is not a diff is refused", diffs: with(func(d *hitl.FileDiff) { d.Unified = "rm -rf /\n" }), err: "unified is not a unified diff: line 1: expected a hunk header"},
		{name: "a bad hunk header is refused", diffs: with(func(d *hitl.FileDiff) { d.Unified = "@@ -x +1 @@\n+y\n" }), err: "unified is not a unified diff"},
		{name: "headers without a hunk are refused", diffs: with(func(d *hitl.FileDiff) { d.Unified = "--- a\n+++ b\n"; d.Added, d.Removed = 0, 0 }), err: "no hunk"},
		{name: "a --- header alone is refused", diffs: with(func(d *hitl.FileDiff) { d.Unified = "--- a" + billing + "\n@@ -1 +1 @@\n-a\n+b\n" }), err: `followed by a "+++" header`},
		{name: "a hunk longer than its header is refused",
			diffs: with(func(d *hitl.FileDiff) {
				d.Unified = "@@ -3 +3 @@\n-var x = 1\n+var x = 2\n-var y = 2\n+var y = 3\n"
				d.Added, d.Removed = 2, 2
			}), err: "hunk 1 (@@ -3 +3 @@) has 2 old and 2 new lines"},
		{name: "a hunk shorter than its header is refused (not cut)",
			diffs: with(func(d *hitl.FileDiff) { d.Unified = "@@ -3,2 +3,2 @@\n-var x = 1\n+var x = 2\n" }), err: "its header says 2 and 2"},
		{name: "a line that is no diff line is refused", diffs: with(func(d *hitl.FileDiff) { d.Unified = "@@ -3 +3 @@\n-var x = 1\n*var x = 2\n" }), err: "a hunk line starts with"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := hitl.Operation{Type: hitl.OpFileWrite, Description: "Edit billing.go", Resource: billing, Paths: tt.paths, Diffs: tt.diffs}
			switch tt.resource {
			case "":
			case "-":
				op.Resource = ""
			default:
				op.Resource = tt.resource
			}
			err := policy.ValidateOperation(&op)
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
