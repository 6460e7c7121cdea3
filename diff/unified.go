package diff

import (
	"fmt"
	"strings"
)

// NoNewline is the line a unified diff puts after a last line that has no
// newline.
const NoNewline = `\ No newline at end of file`

// Result is a unified diff and how many lines it adds and removes.
type Result struct {
	Text    string // "" when the texts are equal
	Added   int
	Removed int
}

// Unified is the unified diff of old against new, with context lines
// around each change and real line numbers, headed "--- oldName" and
// "+++ newName" (use "/dev/null" for a side that does not exist).
func Unified(oldName, newName, old, new string, context int) Result {
	a, b := split(old), split(new)
	ids := map[string]int{}
	id := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			n, ok := ids[l]
			if !ok {
				n = len(ids)
				ids[l] = n
			}
			out[i] = n
		}
		return out
	}
	removed, added := edits(id(a), id(b), maxCost)
	var r Result
	for _, x := range removed {
		if x {
			r.Removed++
		}
	}
	for _, x := range added {
		if x {
			r.Added++
		}
	}
	if r.Added+r.Removed == 0 {
		return r
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range hunks(removed, added, max(context, 0)) {
		h.write(&sb, a, b, removed, added)
	}
	r.Text = sb.String()
	return r
}

// split cuts text into lines, each with its newline; a last line without
// one has none (and so differs from the same line with one).
func split(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// hunk is a run of lines a[i0:i1], b[j0:j1] with its context.
type hunk struct{ i0, i1, j0, j1 int }

// hunks groups the changes into hunks with context lines around them,
// joining changes whose context would touch or overlap.
func hunks(removed, added []bool, context int) []hunk {
	// Walk both sides together: i in a, j in b; equal lines advance both.
	type change struct{ i0, i1, j0, j1 int }
	var changes []change
	i, j := 0, 0
	for i < len(removed) || j < len(added) {
		if (i < len(removed) && removed[i]) || (j < len(added) && added[j]) {
			c := change{i0: i, j0: j}
			for i < len(removed) && removed[i] {
				i++
			}
			for j < len(added) && added[j] {
				j++
			}
			c.i1, c.j1 = i, j
			changes = append(changes, c)
			continue
		}
		i++
		j++
	}
	var out []hunk
	for _, c := range changes {
		h := hunk{i0: max(c.i0-context, 0), j0: max(c.j0-context, 0), i1: min(c.i1+context, len(removed)), j1: min(c.j1+context, len(added))}
		// Context before a change is equal lines on both sides: as many.
		if c.i0-h.i0 != c.j0-h.j0 {
			n := min(c.i0-h.i0, c.j0-h.j0)
			h.i0, h.j0 = c.i0-n, c.j0-n
		}
		if h.i1-c.i1 != h.j1-c.j1 {
			n := min(h.i1-c.i1, h.j1-c.j1)
			h.i1, h.j1 = c.i1+n, c.j1+n
		}
		if k := len(out) - 1; k >= 0 && h.i0 <= out[k].i1 {
			out[k].i1, out[k].j1 = h.i1, h.j1
			continue
		}
		out = append(out, h)
	}
	return out
}

// write writes the hunk: its header, then context, removed and added lines.
func (h hunk) write(sb *strings.Builder, a, b []string, removed, added []bool) {
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", span(h.i0, h.i1-h.i0), span(h.j0, h.j1-h.j0))
	line := func(mark byte, s string) {
		sb.WriteByte(mark)
		sb.WriteString(s)
		if !strings.HasSuffix(s, "\n") {
			sb.WriteString("\n" + NoNewline + "\n")
		}
	}
	i, j := h.i0, h.j0
	for i < h.i1 || j < h.j1 {
		switch {
		case i < h.i1 && removed[i]:
			for i < h.i1 && removed[i] {
				line('-', a[i])
				i++
			}
			for j < h.j1 && added[j] {
				line('+', b[j])
				j++
			}
		case j < h.j1 && added[j]:
			line('+', b[j])
			j++
		default:
			line(' ', a[i])
			i++
			j++
		}
	}
}

// span is a hunk header's range: "start,count", "start" for one line,
// and for no lines the line before (GNU diff's convention).
func span(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

// Cap cuts a diff to at most max bytes at a line boundary; cut reports
// whether anything was left out. The caller says so where it shows it.
func Cap(text string, max int) (out string, cut bool) {
	if len(text) <= max {
		return text, false
	}
	i := strings.LastIndexByte(text[:max], '\n')
	return text[:i+1], true
}
