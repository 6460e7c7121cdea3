package hitl

// MaxDiffBytes bounds the diffs one operation carries, all its files
// together: the edge that computes them cuts them to it and says so
// (FileDiff.Truncated).
const MaxDiffBytes = 256 << 10

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
