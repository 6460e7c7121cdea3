package hook

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/diff"
)

// The diffs of a file-changing tool call, computed where the files are
// (the hook and `hitl mcp` run on the agent's machine): Claude Code's
// Edit, MultiEdit, Write and NotebookEdit, Codex's apply_patch. The person
// who approves sees what the call would do to the file as it is now.

// ReadFile reads a file the call changes; a missing file is an error for
// which errors.Is(err, fs.ErrNotExist).
type ReadFile func(path string) ([]byte, error)

// maxFileBytes bounds a file read for a diff: beyond it the diff says so.
const maxFileBytes = 8 << 20

// contextLines is the context a diff keeps around each change.
const contextLines = 3

// ReadLocal reads a file from the local disk, up to maxFileBytes.
func ReadLocal(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	if st.Size() > maxFileBytes {
		return nil, errTooBig
	}
	b := make([]byte, st.Size())
	_, err = f.ReadAt(b, 0)
	if err != nil && st.Size() > 0 {
		return nil, err
	}
	return b, nil
}

var errTooBig = fmt.Errorf("the file is larger than %d MiB: no diff", maxFileBytes>>20)

// OperationAt is Operation with the call's file changes as diffs against
// the files read with read (relative paths from cwd). With diffs, the
// tool input is not repeated in the context: the diff shows it.
func (t ToolCall) OperationAt(context, cwd string, read ReadFile) hitl.Operation {
	op := t.Operation(context)
	op.Diffs = t.Diffs(cwd, read)
	if len(op.Diffs) > 0 && op.Resource != "" {
		// The diff names the file placed in cwd: so does the resource
		// (the service refuses a diff of another file than it).
		op.Resource = abs(cwd, op.Resource)
	}
	for _, d := range op.Diffs {
		if d.Unified != "" {
			op.Context = context
			break
		}
	}
	return op
}

// Diffs computes the call's file changes; nil for a call that changes no
// file. Together they stay within policy.MaxDiffBytes, cut visibly.
func (t ToolCall) Diffs(cwd string, read ReadFile) []hitl.FileDiff {
	str := func(k string) string { s, _ := t.Input[k].(string); return s }
	var out []hitl.FileDiff
	switch t.Tool {
	case "Edit":
		out = []hitl.FileDiff{editDiff(abs(cwd, str("file_path")), read, []edit{editOf(t.Input)})}
	case "MultiEdit":
		var edits []edit
		list, _ := t.Input["edits"].([]any)
		for _, e := range list {
			m, _ := e.(map[string]any)
			edits = append(edits, editOf(m))
		}
		out = []hitl.FileDiff{editDiff(abs(cwd, str("file_path")), read, edits)}
	case "Write":
		out = []hitl.FileDiff{writeDiff(abs(cwd, str("file_path")), read, str("content"))}
	case "NotebookEdit":
		out = []hitl.FileDiff{notebookDiff(abs(cwd, str("notebook_path")), read, t.Input)}
	case "apply_patch":
		out = patchDiffs(cwd, read, cmp.Or(str("command"), str("patch")))
	default:
		return nil
	}
	for i := range out {
		if strings.TrimSpace(out[i].Path) == "" {
			out[i].Path = "(no path)"
		}
		if len(out[i].Path) > hitl.MaxContextLen || len(out[i].MovedTo) > hitl.MaxContextLen {
			out[i] = hitl.FileDiff{Path: cut(out[i].Path, 200), Change: out[i].Change, Problem: "the path is too long to show a diff"}
		}
	}
	return capDiffs(out, hitl.MaxDiffBytes)
}

func abs(cwd, p string) string {
	if p == "" || filepath.IsAbs(p) || cwd == "" {
		return p
	}
	return filepath.Join(cwd, p)
}

// edit is one old_string → new_string replacement.
type edit struct {
	old, new string
	all      bool
}

func editOf(m map[string]any) edit {
	var e edit
	e.old, _ = m["old_string"].(string)
	e.new, _ = m["new_string"].(string)
	e.all, _ = m["replace_all"].(bool)
	return e
}

// current reads the file as it is now: exists false when it does not.
func current(path string, read ReadFile) (content string, exists bool, problem string) {
	if path == "" {
		return "", false, "the call names no file"
	}
	b, err := read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, ""
	case errors.Is(err, errTooBig):
		return "", true, err.Error()
	case err != nil:
		return "", true, "cannot read the file: " + err.Error()
	case bytes.IndexByte(b, 0) >= 0:
		return "", true, "a binary file: no diff"
	}
	return string(b), true, ""
}

// editDiff applies Edit's or MultiEdit's replacements in turn, as Claude
// Code does: each old_string must be in the file (once, unless
// replace_all); an empty old_string creates a file that does not exist.
func editDiff(path string, read ReadFile, edits []edit) hitl.FileDiff {
	d := hitl.FileDiff{Path: path, Change: hitl.FileModify}
	old, exists, problem := current(path, read)
	if problem != "" {
		d.Problem = problem
		return d
	}
	content := old
	for i, e := range edits {
		which := ""
		if len(edits) > 1 {
			which = fmt.Sprintf("edit %d: ", i+1)
		}
		switch n := strings.Count(content, e.old); {
		case !exists && i == 0 && e.old == "":
			d.Change, content = hitl.FileNew, e.new
			continue
		case !exists:
			d.Problem = "the file does not exist"
			return d
		case e.old == "" && content == "":
			content = e.new
		case e.old == "":
			d.Problem = which + "old_string is empty but the file is not: Claude Code will refuse the edit"
			return d
		case e.old == e.new:
			d.Problem = which + "old_string and new_string are the same: nothing changes"
			return d
		case n == 0:
			d.Problem = which + "old_string is not in the file"
			return d
		case n > 1 && !e.all:
			d.Problem = fmt.Sprintf("%sold_string is in the file %d times and replace_all is false: Claude Code will refuse the edit", which, n)
			return d
		case e.all:
			content = strings.ReplaceAll(content, e.old, e.new)
		default:
			content = strings.Replace(content, e.old, e.new, 1)
		}
	}
	return diffOf(d, old, content)
}

// writeDiff is Write's content against the file on disk, or a new file.
func writeDiff(path string, read ReadFile, content string) hitl.FileDiff {
	d := hitl.FileDiff{Path: path, Change: hitl.FileModify}
	old, exists, problem := current(path, read)
	if problem != "" {
		d.Problem = problem
		return d
	}
	if !exists {
		d.Change = hitl.FileNew
	}
	return diffOf(d, old, content)
}

// diffOf fills d with the unified diff of old against new.
func diffOf(d hitl.FileDiff, old, new string) hitl.FileDiff {
	from, to := "a"+slashed(d.Path), "b"+slashed(cmp.Or(d.MovedTo, d.Path))
	switch d.Change {
	case hitl.FileNew:
		from = "/dev/null"
	case hitl.FileDelete:
		to = "/dev/null"
	}
	r := diff.Unified(from, to, old, new, contextLines)
	d.Unified, d.Added, d.Removed = r.Text, r.Added, r.Removed
	if r.Text == "" && d.Change == hitl.FileModify && d.MovedTo == "" {
		d.Problem = "no change: the file already has this content"
	}
	return d
}

func slashed(p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return "/" + p
}

// notebookDiff is NotebookEdit's change of one cell: its source before
// and after (replace, insert or delete), named "path (cell ID)".
func notebookDiff(path string, read ReadFile, in map[string]any) hitl.FileDiff {
	str := func(k string) string { s, _ := in[k].(string); return s }
	d := hitl.FileDiff{Path: path, Change: hitl.FileModify}
	raw, exists, problem := current(path, read)
	switch {
	case problem != "":
		d.Problem = problem
		return d
	case !exists:
		d.Problem = "the notebook does not exist"
		return d
	}
	var nb struct {
		Cells []struct {
			ID     string `json:"id"`
			Type   string `json:"cell_type"`
			Source any    `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(raw), &nb); err != nil {
		d.Problem = "the notebook is not JSON: " + err.Error()
		return d
	}
	mode, id := cmp.Or(str("edit_mode"), "replace"), str("cell_id")
	at := -1
	for i, c := range nb.Cells {
		if c.ID == id && id != "" {
			at = i
		}
	}
	var n int // Claude Code also takes "cell-N" (0-based) for a cell without an id
	if _, err := fmt.Sscanf(id, "cell-%d", &n); at < 0 && err == nil && n >= 0 && n < len(nb.Cells) {
		at = n
	}
	cell := func(i int) string {
		switch s := nb.Cells[i].Source.(type) {
		case string:
			return s
		case []any:
			var sb strings.Builder
			for _, l := range s {
				x, _ := l.(string)
				sb.WriteString(x)
			}
			return sb.String()
		}
		return ""
	}
	endLine := func(s string) string {
		if s != "" && !strings.HasSuffix(s, "\n") {
			return s + "\n"
		}
		return s
	}
	name := func(what string) string { return fmt.Sprintf("%s (%s)", path, what) }
	switch {
	case mode == "insert":
		where := "a new first cell"
		if at >= 0 {
			where = "a new cell after cell " + id
		} else if id != "" {
			d.Problem = "cell " + id + " is not in the notebook"
			return d
		}
		r := diff.Unified("/dev/null", "b"+slashed(name(where)), "", endLine(str("new_source")), contextLines)
		d.Unified, d.Added = r.Text, r.Added
		return d
	case at < 0 && id == "":
		d.Problem = "the call names no cell (cell_id)"
		return d
	case at < 0:
		d.Problem = "cell " + id + " is not in the notebook"
		return d
	case mode == "delete":
		r := diff.Unified("a"+slashed(name("cell "+id)), "/dev/null", endLine(cell(at)), "", contextLines)
		d.Unified, d.Removed = r.Text, r.Removed
		return d
	}
	label := "a" + slashed(name("cell "+id))
	r := diff.Unified(label, "b"+label[1:], endLine(cell(at)), endLine(str("new_source")), contextLines)
	d.Unified, d.Added, d.Removed = r.Text, r.Added, r.Removed
	if r.Text == "" {
		d.Problem = "no change: the cell already has this source"
	}
	return d
}

// patchDiffs are apply_patch's files, each diffed against the file on
// disk as Codex would change it.
func patchDiffs(cwd string, read ReadFile, patch string) []hitl.FileDiff {
	files, err := parsePatch(patch)
	if err != nil {
		return []hitl.FileDiff{{Path: "(the patch)", Change: hitl.FileModify, Problem: "not a patch Codex can apply: " + err.Error()}}
	}
	out := make([]hitl.FileDiff, 0, len(files))
	for _, f := range files {
		path := abs(cwd, f.path)
		d := hitl.FileDiff{Path: path, Change: hitl.FileModify}
		if f.moveTo != "" {
			d.MovedTo = abs(cwd, f.moveTo)
		}
		old, exists, problem := current(path, read)
		switch {
		case problem != "":
			d.Problem = problem
		case f.op == "add":
			d.Change = hitl.FileNew
			if exists {
				d.Change = hitl.FileModify // Codex overwrites it
			}
			d = diffOf(d, old, f.add.String())
		case !exists:
			d.Problem = "the file does not exist"
		case f.op == "delete":
			d.Change = hitl.FileDelete
			d = diffOf(d, old, "")
		default:
			new, err := f.apply(old)
			if err != nil {
				d.Problem = "the patch does not fit the file: " + err.Error()
				break
			}
			d = diffOf(d, old, new)
		}
		out = append(out, d)
	}
	return out
}

// capDiffs cuts the diffs, in order, so that together they stay within
// max bytes; a cut diff says so (Truncated) and keeps its full counts.
func capDiffs(diffs []hitl.FileDiff, max int) []hitl.FileDiff {
	left := max
	for i := range diffs {
		var cut bool
		diffs[i].Unified, cut = diff.Cap(diffs[i].Unified, left)
		diffs[i].Truncated = diffs[i].Truncated || cut
		left -= len(diffs[i].Unified)
	}
	return diffs
}
