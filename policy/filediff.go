package policy

import (
	"fmt"
	"strings"

	"github.com/hitlbot/hitl/fault"
)

// MaxDiffBytes bounds the diffs one operation carries, all its files
// together: the edge that computes them cuts them to it and says so
// (FileDiff.Truncated).
const MaxDiffBytes = 256 << 10

// maxDiffFiles bounds the files of one operation (a patch of many files).
const maxDiffFiles = 500

// FileChange is what a file change does to its file.
type FileChange string

const (
	FileNew    FileChange = "new"    // the file does not exist yet
	FileModify FileChange = "modify" // the file exists and changes
	FileDelete FileChange = "delete" // the file is removed
)

// FileDiff is one file of a file-changing operation as the person who
// approves it sees it: a unified diff (3 lines of context, real line
// numbers) computed beside the file by the edge that runs on the agent's
// machine. The policy never reads it: it decides by the operation's path.
type FileDiff struct {
	Path   string     `json:"path"`
	Change FileChange `json:"change"`
	// MovedTo is where the file moves (a patch's "Move to"), "" if it stays.
	MovedTo string `json:"movedTo,omitempty"`
	// Added and Removed count the whole diff's lines, also when Unified
	// was cut.
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Unified string `json:"unified,omitempty"`
	// Truncated: Unified was cut at a line end to stay within MaxDiffBytes.
	Truncated bool `json:"truncated,omitempty"`
	// Problem is why there is no diff, when the change cannot be shown as
	// one: "old_string is not in the file" (the agent is wrong about it).
	Problem string `json:"problem,omitempty"`
}

// DiffStat is the operation's lines added and removed over all its files.
func (o *Operation) DiffStat() (added, removed int) {
	for _, d := range o.Diffs {
		added += d.Added
		removed += d.Removed
	}
	return added, removed
}

// validateDiffs checks the diffs an agent sent with an operation.
func (o *Operation) validateDiffs() error {
	if len(o.Diffs) > maxDiffFiles {
		return fault.Errorf(fault.EINVALID, "diffs: %d files, at most %d", len(o.Diffs), maxDiffFiles)
	}
	size := 0
	for i, d := range o.Diffs {
		at := fmt.Sprintf("diffs[%d]", i)
		switch {
		case strings.TrimSpace(d.Path) == "":
			return fault.Errorf(fault.EINVALID, "%s: path is required", at)
		case len(d.Path) > MaxFieldLen || len(d.MovedTo) > MaxFieldLen || len(d.Problem) > MaxFieldLen:
			return fault.Errorf(fault.EINVALID, "%s: path, movedTo or problem is too long", at)
		case d.Change != FileNew && d.Change != FileModify && d.Change != FileDelete:
			return fault.Errorf(fault.EINVALID, "%s: change %q is invalid: use new, modify or delete", at, d.Change)
		case d.Added < 0 || d.Removed < 0:
			return fault.Errorf(fault.EINVALID, "%s: added and removed count lines: they cannot be negative", at)
		}
		size += len(d.Unified)
	}
	if size > MaxDiffBytes {
		return fault.Errorf(fault.EINVALID, "diffs: %d bytes of diff, at most %d: cut them and set truncated", size, MaxDiffBytes)
	}
	return nil
}
