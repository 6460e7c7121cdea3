package blocks

import (
	"net/url"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// A file change's diff in a message: per file its name, what happens to
// it and +added −removed, then its first lines in a code block (no wide
// tables, so it reads on Slack's mobile app), then "… N more lines" with a
// link to the whole diff on the question's web page.

const (
	maxDiffFiles    = 3   // files shown with their lines; the others are counted
	maxDiffLines    = 12  // diff lines shown per file
	maxDiffLineText = 120 // characters of one diff line
	maxFlags        = 4   // lines flagged under a file's lines
)

// diffSections renders the operation's diffs, or nothing.
func diffSections(q *hitl.Question, opts MessageOptions) []slack.Block {
	if q.Operation == nil || len(q.Operation.Diffs) == 0 {
		return nil
	}
	var bs []slack.Block
	ds := q.Operation.Diffs
	for _, d := range ds[:min(len(ds), maxDiffFiles)] {
		bs = append(bs, section(diffText(d, q, opts)))
	}
	if rest := ds[min(len(ds), maxDiffFiles):]; len(rest) > 0 {
		var a, r int
		for _, d := range rest {
			a, r = a+d.Added, r+d.Removed
		}
		text := "…and " + itoa(len(rest)) + " more files (" + DiffStat(a, r) + ")"
		if l := wholeDiff(q, opts); l != "" {
			text += " — " + l
		}
		bs = append(bs, contextBlock(mrkdwn(Truncate(text, MaxTextObject, ellipsis))))
	}
	return bs
}

// DiffStat is "+3 −1" (a true minus sign).
func DiffStat(added, removed int) string {
	return "+" + itoa(added) + " −" + itoa(removed)
}

// diffText is one file's section text, within MaxSectionText.
func diffText(d hitl.FileDiff, q *hitl.Question, opts MessageOptions) string {
	path, _ := escapeCut(oneLine(d.Path), 300, ellipsis)
	head := "📄 *" + path + "*"
	switch d.Change {
	case hitl.FileNew:
		head += " · new file"
	case hitl.FileDelete:
		head += " · deleted"
	}
	if d.MovedTo != "" {
		to, _ := escapeCut(oneLine(d.MovedTo), 300, ellipsis)
		head += " · moved to *" + to + "*"
	}
	if d.Problem == "" || d.Unified != "" {
		head += " · `" + DiffStat(d.Added, d.Removed) + "`"
	}
	if d.Problem != "" {
		p, _ := escapeCut(oneLine(d.Problem), 500, ellipsis)
		head += "\n⚠️ " + p
	}
	lines := diffBody(d.Unified)
	if len(lines) == 0 {
		if d.Truncated {
			head += "\n_(the diff was cut before this file: " + wholeOr(q, opts) + ")_"
		}
		return Truncate(head, MaxSectionText, ellipsis)
	}
	shown := lines[:min(len(lines), maxDiffLines)]
	more := len(lines) - len(shown)
	var tail string
	if more > 0 || d.Truncated {
		tail = "… " + itoa(more) + " more lines"
		if d.Truncated {
			tail += " (and more cut at 256 KiB)"
		}
		tail += " — " + wholeOr(q, opts)
	}
	// The shown lines that hold hidden characters are flagged under the
	// block (at most maxFlags; their room is kept).
	flagOf := func(i int) string { return flagLine("line "+itoa(i+1)+" above", shown[i]) }
	reserve, n := 0, 0
	for i := range shown {
		if f := flagOf(i); f != "" && n < maxFlags {
			reserve, n = reserve+Len(f), n+1
		}
	}
	room := MaxSectionText - Len(head) - Len(tail) - reserve - 10
	var code strings.Builder
	var flags string
	n = 0
	for i, l := range shown {
		e, _ := escapeCut(unfence(l), maxDiffLineText, ellipsis)
		if Len(code.String())+Len(e)+1 > room {
			if tail == "" {
				tail = "… " + itoa(len(lines)-i) + " more lines — " + wholeOr(q, opts)
			}
			break
		}
		code.WriteString(e + "\n")
		if f := flagOf(i); f != "" && n < maxFlags {
			flags, n = flags+f, n+1
		}
	}
	text := head + "\n```\n" + strings.TrimSuffix(code.String(), "\n") + "\n```" + flags
	if tail != "" {
		text += "\n" + tail
	}
	return Truncate(text, MaxSectionText, ellipsis)
}

// diffBody is a unified diff's lines from its first hunk on (the ---/+++
// header names the file, shown above it).
func diffBody(unified string) []string {
	lines := strings.Split(strings.TrimSuffix(unified, "\n"), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "@@") {
			return lines[i:]
		}
	}
	return nil
}

// wholeDiff links the question's web page, "" without a web URL.
func wholeDiff(q *hitl.Question, opts MessageOptions) string {
	if opts.WebURL == "" || q.ID == "" {
		return ""
	}
	u := strings.TrimRight(opts.WebURL, "/") + "/q/" + url.PathEscape(q.ID)
	return "<" + Escape(u) + "|the whole diff in the web inbox>"
}

// wholeOr is wholeDiff, or where else the whole diff is shown.
func wholeOr(q *hitl.Question, opts MessageOptions) string {
	if l := wholeDiff(q, opts); l != "" {
		return l
	}
	id, _ := escapeCut(q.ID, 80, ellipsis)
	return "the whole diff: `hitl show " + id + "`"
}
