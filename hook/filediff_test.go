package hook

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const billing = `package billing

func Refund(o Order) error {
	if o.Paid == 0 {
		return errNothingPaid
	}
	if !o.RefundAllowed() {
		return errNoRefund
	}
	return pay(-o.Paid)
}
`

const notebook = `{"cells": [
 {"id": "intro", "cell_type": "markdown", "metadata": {}, "source": ["# Sales\n", "By month."]},
 {"id": "load", "cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
  "source": ["import pandas as pd\n", "df = pd.read_csv(\"sales.csv\")\n", "df.head()"]}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`

// disk is the files the tool calls change, read as the hook reads them.
var disk = map[string]string{
	"/repo/src/billing.go": billing,
	"/repo/src/twice.go":   "x := 1\nx := 1\n",
	"/repo/README.md":      "# repo\n\nA repository.\n",
	"/repo/old.txt":        "gone\n",
	"/repo/bin.dat":        "\x00\x01",
	"/repo/sales.ipynb":    notebook,
}

func readDisk(path string) ([]byte, error) {
	s, ok := disk[path]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	return []byte(s), nil
}

// goldenDiffs writes the diffs as a person reads them.
func goldenDiffs(ds []hitl.FileDiff) string {
	var sb strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&sb, "path: %s\nchange: %s\n", d.Path, d.Change)
		if d.MovedTo != "" {
			fmt.Fprintf(&sb, "moved to: %s\n", d.MovedTo)
		}
		fmt.Fprintf(&sb, "lines: +%d -%d\n", d.Added, d.Removed)
		if d.Truncated {
			sb.WriteString("truncated\n")
		}
		if d.Problem != "" {
			fmt.Fprintf(&sb, "problem: %s\n", d.Problem)
		}
		sb.WriteString(d.Unified + "\n")
	}
	return sb.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "diffs", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./mcp -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n%s", name, path, got)
	}
}

// TestToolCallDiffs: the tool inputs are the documented hook payloads'
// tool_input (Claude Code: Edit, MultiEdit, Write, NotebookEdit; Codex:
// apply_patch with the patch in command).
func TestToolCallDiffs(t *testing.T) {
	tests := []struct{ name, tool, input string }{
		{"edit", "Edit", `{"file_path": "/repo/src/billing.go", "old_string": "\tif !o.RefundAllowed() {\n\t\treturn errNoRefund\n\t}\n", "new_string": ""}`},
		{"edit_relative_path", "Edit", `{"file_path": "README.md", "old_string": "A repository.", "new_string": "A repository of billing code."}`},
		{"edit_replace_all", "Edit", `{"file_path": "/repo/src/billing.go", "old_string": "o.Paid", "new_string": "o.AmountPaid", "replace_all": true}`},
		{"edit_old_string_missing", "Edit", `{"file_path": "/repo/src/billing.go", "old_string": "return refund(o)", "new_string": "return nil"}`},
		{"edit_old_string_twice", "Edit", `{"file_path": "/repo/src/twice.go", "old_string": "x := 1", "new_string": "x := 2"}`},
		{"edit_creates_a_file", "Edit", `{"file_path": "/repo/src/new.go", "old_string": "", "new_string": "package src\n"}`},
		{"edit_missing_file", "Edit", `{"file_path": "/repo/src/none.go", "old_string": "a", "new_string": "b"}`},
		{"edit_binary_file", "Edit", `{"file_path": "/repo/bin.dat", "old_string": "a", "new_string": "b"}`},
		{"multiedit", "MultiEdit", `{"file_path": "/repo/src/billing.go", "edits": [{"old_string": "errNoRefund", "new_string": "ErrNoRefund"}, {"old_string": "ErrNoRefund\n\t}\n", "new_string": "ErrNoRefund\n\t}\n\tlog.Printf(\"refund %v\", o.ID)\n"}]}`},
		{"multiedit_second_missing", "MultiEdit", `{"file_path": "/repo/src/billing.go", "edits": [{"old_string": "errNoRefund", "new_string": "ErrNoRefund"}, {"old_string": "errNoRefund", "new_string": "x"}]}`},
		{"write_new_file", "Write", `{"file_path": "/repo/src/tax.go", "content": "package billing\n\nconst VAT = 0.2\n"}`},
		{"write_existing_file", "Write", `{"file_path": "/repo/README.md", "content": "# repo\n\nBilling.\n\n## Use\n"}`},
		{"write_same_content", "Write", `{"file_path": "/repo/README.md", "content": "# repo\n\nA repository.\n"}`},
		{"notebook_replace", "NotebookEdit", `{"notebook_path": "/repo/sales.ipynb", "cell_id": "load", "new_source": "import pandas as pd\ndf = pd.read_csv(\"sales-2026.csv\")\ndf.head()", "cell_type": "code", "edit_mode": "replace"}`},
		{"notebook_insert", "NotebookEdit", `{"notebook_path": "/repo/sales.ipynb", "cell_id": "intro", "new_source": "df.plot()", "cell_type": "code", "edit_mode": "insert"}`},
		{"notebook_delete", "NotebookEdit", `{"notebook_path": "/repo/sales.ipynb", "cell_id": "cell-0", "new_source": "", "edit_mode": "delete"}`},
		{"notebook_cell_missing", "NotebookEdit", `{"notebook_path": "/repo/sales.ipynb", "cell_id": "nope", "new_source": "x"}`},
		{"apply_patch", "apply_patch", `{"command": "*** Begin Patch\n*** Update File: src/billing.go\n@@ func Refund(o Order) error {\n \tif o.Paid == 0 {\n-\t\treturn errNothingPaid\n+\t\treturn nil\n \t}\n*** Add File: src/tax.go\n+package billing\n+\n+const VAT = 0.2\n*** Delete File: old.txt\n*** Update File: README.md\n*** Move to: docs/README.md\n@@\n-A repository.\n+A repository, moved.\n*** End Patch"}`},
		{"apply_patch_does_not_fit", "apply_patch", `{"command": "*** Begin Patch\n*** Update File: /repo/src/billing.go\n@@\n-\treturn refund(o)\n+\treturn nil\n*** End Patch"}`},
		{"apply_patch_not_a_patch", "apply_patch", `{"command": "rm -rf /"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in map[string]any
			if err := json.Unmarshal([]byte(tt.input), &in); err != nil {
				t.Fatal(err)
			}
			call := ToolCall{Tool: tt.tool, Input: in}
			ds := call.Diffs("/repo", readDisk)
			checkGolden(t, tt.name, goldenDiffs(ds))
			op := call.OperationAt("Claude Code session s1 in /repo", "/repo", readDisk)
			if err := policy.ValidateOperation(&op); err != nil {
				t.Fatalf("the operation is not valid: %v", err)
			}
		})
	}
}

func TestNoDiffsForCallsThatChangeNoFile(t *testing.T) {
	for _, tool := range []string{"Bash", "Read", "WebFetch", "mcp__x__y"} {
		if ds := (ToolCall{Tool: tool, Input: map[string]any{"command": "ls", "file_path": "/repo/README.md"}}).Diffs("/repo", readDisk); ds != nil {
			t.Errorf("%s: diffs %v", tool, ds)
		}
	}
}

func TestADiffShownReplacesTheInputPreview(t *testing.T) {
	call := ToolCall{Tool: "Write", Input: map[string]any{"file_path": "/repo/README.md", "content": "new\n"}}
	if op := call.OperationAt("ctx", "/repo", readDisk); op.Context != "ctx" {
		t.Errorf("context %q: the input is repeated beside its diff", op.Context)
	}
	call.Input["file_path"] = "/repo/bin.dat" // no diff: the preview stays
	if op := call.OperationAt("ctx", "/repo", readDisk); !strings.Contains(op.Context, "Input: ") {
		t.Errorf("context %q: without a diff the input is not shown", op.Context)
	}
}

func TestA20000LineDiffIsCappedAndSaysSo(t *testing.T) {
	var sb strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&sb, "line %d of a generated file, long enough to matter\n", i)
	}
	call := ToolCall{Tool: "Write", Input: map[string]any{"file_path": "/repo/gen.go", "content": sb.String()}}
	op := call.OperationAt("", "/repo", readDisk)
	if len(op.Diffs) != 1 {
		t.Fatalf("%d diffs", len(op.Diffs))
	}
	d := op.Diffs[0]
	switch {
	case !d.Truncated:
		t.Error("not marked truncated")
	case len(d.Unified) > hitl.MaxDiffBytes:
		t.Errorf("%d bytes, over the cap", len(d.Unified))
	case len(d.Unified) < hitl.MaxDiffBytes-200:
		t.Errorf("%d bytes: cut more than needed", len(d.Unified))
	case !strings.HasSuffix(d.Unified, "\n"):
		t.Error("cut inside a line")
	case d.Added != 20000:
		t.Errorf("+%d: the count is of the whole diff", d.Added)
	}
	if err := policy.ValidateOperation(&op); err != nil {
		t.Fatal(err)
	}
	// Two files share the cap: the second gets what the first left.
	call = ToolCall{Tool: "apply_patch", Input: map[string]any{"command": "*** Begin Patch\n*** Add File: a.txt\n+" +
		strings.ReplaceAll(strings.TrimSuffix(sb.String(), "\n"), "\n", "\n+") + "\n*** Add File: b.txt\n+b\n*** End Patch"}}
	op = call.OperationAt("", "/repo", readDisk)
	if len(op.Diffs) != 2 || !op.Diffs[1].Truncated || op.Diffs[1].Unified != "" || op.Diffs[1].Added != 1 {
		t.Fatalf("second file: %+v", op.Diffs[1])
	}
	if err := policy.ValidateOperation(&op); err != nil {
		t.Fatal(err)
	}
}

func FuzzPatchDiffs(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: src/billing.go\n@@ func Refund(o Order) error {\n-\tif o.Paid == 0 {\n+\tif o.Paid <= 0 {\n*** End of File\n*** End Patch")
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: old.txt\n*** End Patch")
	f.Fuzz(func(t *testing.T, patch string) {
		ds := ToolCall{Tool: "apply_patch", Input: map[string]any{"command": patch}}.Diffs("/repo", readDisk)
		op := hitl.Operation{Type: hitl.OpFileWrite, Description: "Apply a patch", Diffs: ds}
		if err := policy.ValidateOperation(&op); err != nil && len(ds) <= 500 {
			t.Fatalf("diffs of %q are not valid: %v", patch, err)
		}
	})
}
