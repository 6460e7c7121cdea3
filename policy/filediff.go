package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/diff"
	"github.com/hitlbot/hitl/fault"
)

// maxDiffFiles bounds the files of one operation (a patch of many files).
const maxDiffFiles = 500

// validateDiffs checks the diffs an agent sent with an operation.
func validateDiffs(o *hitl.Operation) error {
	if len(o.Diffs) > maxDiffFiles {
		return fault.Errorf(fault.EINVALID, "diffs: %d files, at most %d", len(o.Diffs), maxDiffFiles)
	}
	size := 0
	for i, d := range o.Diffs {
		at := fmt.Sprintf("diffs[%d]", i)
		switch {
		case strings.TrimSpace(d.Path) == "":
			return fault.Errorf(fault.EINVALID, "%s: path is required", at)
		case len(d.Path) > hitl.MaxFieldLen || len(d.MovedTo) > hitl.MaxFieldLen || len(d.Problem) > hitl.MaxFieldLen:
			return fault.Errorf(fault.EINVALID, "%s: path, movedTo or problem is too long", at)
		case d.Change != hitl.FileNew && d.Change != hitl.FileModify && d.Change != hitl.FileDelete:
			return fault.Errorf(fault.EINVALID, "%s: change %q is invalid: use new, modify or delete", at, d.Change)
		case d.Added < 0 || d.Removed < 0:
			return fault.Errorf(fault.EINVALID, "%s: added and removed count lines: they cannot be negative", at)
		}
		if err := describes(o, d); err != nil {
			return fault.Errorf(fault.EINVALID, "%s: %v", at, err)
		}
		size += len(d.Unified)
	}
	if size > hitl.MaxDiffBytes {
		return fault.Errorf(fault.EINVALID, "diffs: %d bytes of diff, at most %d: cut them and set truncated", size, hitl.MaxDiffBytes)
	}
	return nil
}

// describes checks that a diff describes its operation, so that what a
// person is shown is what the policy decided (docs/diffs.md#what-is-refused):
//
//   - its path (and movedTo) is one of the operation's files
//     (operationFiles);
//   - its unified text is one file's unified diff (diff.Check), whose
//     "---" and "+++" headers, if any, name that file (or /dev/null);
//   - its counts are its unified text's: equal, or when the text was cut
//     (truncated) at least what is left of it.
func describes(o *hitl.Operation, d hitl.FileDiff) error {
	files := operationFiles(o)
	for _, p := range []string{d.Path, d.MovedTo} {
		if p != "" && files != nil && !files[cleanPath(p)] {
			return fmt.Errorf("path %q is not the operation's file (%s): a diff shows the file the operation changes", p, fileList(o))
		}
	}
	st, err := diff.Check(d.Unified, d.Truncated)
	if err != nil {
		return fmt.Errorf("unified is not a unified diff: %v", err)
	}
	if !headerNames(st.Old, "a", d.Path) {
		return fmt.Errorf("unified's \"---\" header names %q, not the diff's path %q", cutString(st.Old, 200), d.Path)
	}
	if to := d.MovedTo; !headerNames(st.New, "b", cmpOr(to, d.Path)) {
		return fmt.Errorf("unified's \"+++\" header names %q, not the diff's path %q", cutString(st.New, 200), cmpOr(to, d.Path))
	}
	switch {
	case !d.Truncated && (st.Added != d.Added || st.Removed != d.Removed):
		return fmt.Errorf("counts +%d −%d disagree with the unified text (+%d −%d)", d.Added, d.Removed, st.Added, st.Removed)
	case d.Truncated && (st.Added > d.Added || st.Removed > d.Removed):
		return fmt.Errorf("counts +%d −%d are fewer than the unified text's (+%d −%d), though it was cut", d.Added, d.Removed, st.Added, st.Removed)
	}
	return nil
}

// operationFiles are the files an operation names, cleaned: its resource, and the
// paths an edge on the agent's machine says lead to it through symlinks
// (Paths; for an operation without a resource, every path in Paths). nil
// when it names none (Codex's apply_patch: the diffs name the files).
func operationFiles(o *hitl.Operation) map[string]bool {
	if o.Resource == "" && len(o.Paths) == 0 {
		return nil
	}
	files := map[string]bool{}
	if o.Resource != "" {
		files[cleanPath(o.Resource)] = true
	}
	for from, to := range o.Paths {
		if o.Resource == "" {
			files[cleanPath(from)], files[cleanPath(to)] = true, true
		} else if cleanPath(to) == cleanPath(o.Resource) {
			files[cleanPath(from)] = true
		}
	}
	return files
}

func fileList(o *hitl.Operation) string {
	var names []string
	for f := range operationFiles(o) {
		names = append(names, f)
	}
	slices.Sort(names)
	s := strings.Join(names, ", ")
	return cutString(s, 300)
}

// headerNames reports whether a unified diff's header name is the file's:
// none, /dev/null, the path, or the path with its side's prefix ("a/src/x",
// "b/src/x"), optionally followed by " (…)" (a notebook's cell).
func headerNames(name, side, file string) bool {
	if name == "" || name == "/dev/null" {
		return true
	}
	if i := strings.LastIndex(name, " ("); i > 0 && strings.HasSuffix(name, ")") {
		if headerNames(name[:i], side, file) {
			return true
		}
	}
	p := file
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return name == file || name == side+p || path.Clean(name) == cleanPath(file)
}

func cutString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
