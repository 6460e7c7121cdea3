package diff

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is what a diff line does.
type Kind byte

const (
	Context Kind = ' '
	Added   Kind = '+'
	Removed Kind = '-'
)

// Line is one line of a hunk, with its line numbers in the old and new
// text (0 where it has none: an added line has no old number).
type Line struct {
	Kind     Kind
	Old, New int
	Text     string // without the mark and the newline
	// NoNewline: the line is the last of its text and has no newline.
	NoNewline bool
}

// Hunk is a hunk of a unified diff.
type Hunk struct {
	OldStart, OldLines, NewStart, NewLines int
	Lines                                  []Line
}

// Header is the hunk's "@@ -a,b +c,d @@" line.
func (h Hunk) Header() string {
	return fmt.Sprintf("@@ -%s +%s @@", headerSpan(h.OldStart, h.OldLines), headerSpan(h.NewStart, h.NewLines))
}

func headerSpan(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}

// Parse reads the hunks of one file's unified diff, skipping its "---" and
// "+++" headers. A diff cut short (Cap) parses up to where it was cut.
func Parse(text string) ([]Hunk, error) {
	var out []Hunk
	var h *Hunk
	oldNo, newNo := 0, 0
	for n, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case l == "" && text == "":
			continue
		case strings.HasPrefix(l, "@@ "):
			var err error
			out = append(out, Hunk{})
			h = &out[len(out)-1]
			if h.OldStart, h.OldLines, h.NewStart, h.NewLines, err = parseHeader(l); err != nil {
				return nil, fmt.Errorf("line %d: %v", n+1, err)
			}
			oldNo, newNo = h.OldStart, h.NewStart
			if h.OldLines == 0 {
				oldNo++
			}
			if h.NewLines == 0 {
				newNo++
			}
		case h == nil && (strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ")):
		case h == nil:
			return nil, fmt.Errorf("line %d: expected a hunk header (@@ … @@), got %q", n+1, cutText(l, 40))
		case l == NoNewline:
			if len(h.Lines) > 0 {
				h.Lines[len(h.Lines)-1].NoNewline = true
			}
		case l == "":
			// An empty context line whose space was lost (editors strip it).
			h.Lines = append(h.Lines, Line{Kind: Context, Old: oldNo, New: newNo})
			oldNo++
			newNo++
		default:
			line := Line{Kind: Kind(l[0]), Text: l[1:]}
			switch line.Kind {
			case Context:
				line.Old, line.New = oldNo, newNo
				oldNo++
				newNo++
			case Removed:
				line.Old = oldNo
				oldNo++
			case Added:
				line.New = newNo
				newNo++
			default:
				return nil, fmt.Errorf("line %d: a hunk line starts with ' ', '+' or '-', got %q", n+1, cutText(l, 40))
			}
			h.Lines = append(h.Lines, line)
		}
	}
	return out, nil
}

func parseHeader(l string) (os, ol, ns, nl int, err error) {
	f := strings.Fields(l)
	if len(f) < 4 || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, 0, fmt.Errorf("bad hunk header %q", cutText(l, 60))
	}
	if os, ol, err = parseSpan(f[1][1:]); err == nil {
		ns, nl, err = parseSpan(f[2][1:])
	}
	return
}

func parseSpan(s string) (start, n int, err error) {
	a, b, ok := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil || start < 0 {
		return 0, 0, fmt.Errorf("bad range %q", s)
	}
	n = 1
	if ok {
		if n, err = strconv.Atoi(b); err != nil || n < 0 {
			return 0, 0, fmt.Errorf("bad range %q", s)
		}
	}
	return start, n, nil
}

func cutText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
