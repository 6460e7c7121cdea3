package diff

import (
	"fmt"
	"strings"
)

// Stat is what Check read of one file's unified diff: its lines added and
// removed, and the names its "---" and "+++" headers give ("" without).
type Stat struct {
	Added, Removed int
	Old, New       string
}

// Check reads text as one file's unified diff, strictly: before the first
// hunk only a "---" header and then a "+++" header; each hunk's lines
// agree with its "@@ -a,b +c,d @@" header (b context and removed lines, d
// context and added lines); every line is context, removed, added or "\
// No newline at end of file". cut says the text was cut at a line end
// (Cap): its last hunk may then end early, or the text before its first
// hunk. A header's name is the text before a tab (GNU diff puts a time
// after it).
func Check(text string, cut bool) (Stat, error) {
	var st Stat
	if text == "" {
		return st, nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	n := 0
	if strings.HasPrefix(lines[0], "--- ") {
		st.Old, _, _ = strings.Cut(lines[0][4:], "\t")
		n++
		switch {
		case n < len(lines) && strings.HasPrefix(lines[n], "+++ "):
			st.New, _, _ = strings.Cut(lines[n][4:], "\t")
			n++
		case n == len(lines) && cut:
			return st, nil
		default:
			return st, fmt.Errorf("line %d: a \"---\" header is followed by a \"+++\" header", n+1)
		}
	}
	if n == len(lines) {
		if cut {
			return st, nil
		}
		return st, fmt.Errorf("no hunk (@@ … @@) after the headers")
	}
	if !strings.HasPrefix(lines[n], "@@ ") {
		return st, fmt.Errorf("line %d: expected a hunk header (@@ … @@), got %q", n+1, cutText(lines[n], 40))
	}
	hunks, err := Parse(strings.Join(lines[n:], "\n"))
	if err != nil {
		return st, fmt.Errorf("after line %d: %v", n, err)
	}
	for i, h := range hunks {
		var old, new int
		for _, l := range h.Lines {
			switch l.Kind {
			case Context:
				old, new = old+1, new+1
			case Removed:
				old, st.Removed = old+1, st.Removed+1
			case Added:
				new, st.Added = new+1, st.Added+1
			}
		}
		short := cut && i == len(hunks)-1 && old <= h.OldLines && new <= h.NewLines
		if (old != h.OldLines || new != h.NewLines) && !short {
			return st, fmt.Errorf("hunk %d (%s) has %d old and %d new lines: its header says %d and %d", i+1, h.Header(), old, new, h.OldLines, h.NewLines)
		}
	}
	return st, nil
}
