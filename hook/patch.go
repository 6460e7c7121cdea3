package hook

import (
	"fmt"
	"strings"
)

// Codex's apply_patch format, as its hooks hand it over in
// tool_input.command:
//
//	*** Begin Patch
//	*** Add File: path          then the file's lines, each "+"
//	*** Delete File: path
//	*** Update File: path
//	*** Move to: path           (optional)
//	@@ [a line to find first]   then " " context, "-" removed, "+" added lines
//	*** End of File             (optional: the chunk ends the file)
//	*** End Patch

// patchFile is one file of a patch.
type patchFile struct {
	op     string // "add", "delete", "update"
	path   string
	moveTo string
	add    strings.Builder // the content of an added file
	chunks []patchChunk
}

// patchChunk is one "@@" chunk of an update.
type patchChunk struct {
	anchor   string   // the line after "@@ ", to find before the chunk
	old, new []string // context and removed lines; context and added lines
	eof      bool     // the chunk ends the file
}

// parsePatch reads a patch in Codex's format.
func parsePatch(text string) ([]patchFile, error) {
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(text), "\r\n", "\n"), "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != "*** Begin Patch" {
		return nil, fmt.Errorf("the patch does not start with *** Begin Patch")
	}
	if strings.TrimSpace(lines[len(lines)-1]) != "*** End Patch" {
		return nil, fmt.Errorf("the patch does not end with *** End Patch")
	}
	lines = lines[1 : len(lines)-1]
	var files []patchFile
	var f *patchFile
	var c *patchChunk
	for n, l := range lines {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("patch line %d: %s", n+2, fmt.Sprintf(format, args...))
		}
		header := func(prefix string) (string, bool) {
			p, ok := strings.CutPrefix(l, prefix)
			return strings.TrimSpace(p), ok
		}
		if p, ok := header("*** Add File: "); ok {
			files, c = append(files, patchFile{op: "add", path: p}), nil
			f = &files[len(files)-1]
			continue
		}
		if p, ok := header("*** Delete File: "); ok {
			files, c = append(files, patchFile{op: "delete", path: p}), nil
			f = &files[len(files)-1]
			continue
		}
		if p, ok := header("*** Update File: "); ok {
			files, c = append(files, patchFile{op: "update", path: p}), nil
			f = &files[len(files)-1]
			continue
		}
		switch {
		case f == nil:
			return nil, bad("expected *** Add File, *** Update File or *** Delete File, got %q", cut(l, 60))
		case f.op == "add":
			s, ok := strings.CutPrefix(l, "+")
			if !ok {
				return nil, bad("a line of an added file starts with +, got %q", cut(l, 60))
			}
			f.add.WriteString(s + "\n")
		case f.op == "delete":
			return nil, bad("a deleted file has no lines, got %q", cut(l, 60))
		case strings.HasPrefix(l, "*** Move to: "):
			if len(f.chunks) > 0 || f.moveTo != "" {
				return nil, bad("*** Move to comes right after *** Update File")
			}
			f.moveTo, _ = header("*** Move to: ")
		case strings.TrimSpace(l) == "*** End of File":
			if c == nil {
				return nil, bad("*** End of File before any change")
			}
			c.eof = true
		case l == "@@" || strings.HasPrefix(l, "@@ "):
			f.chunks = append(f.chunks, patchChunk{anchor: strings.TrimPrefix(strings.TrimPrefix(l, "@@"), " ")})
			c = &f.chunks[len(f.chunks)-1]
		default:
			if c == nil { // the first chunk may leave out its @@
				f.chunks = append(f.chunks, patchChunk{})
				c = &f.chunks[len(f.chunks)-1]
			}
			switch {
			case l == "": // an empty context line whose space was lost
				c.old, c.new = append(c.old, ""), append(c.new, "")
			case l[0] == ' ':
				c.old, c.new = append(c.old, l[1:]), append(c.new, l[1:])
			case l[0] == '-':
				c.old = append(c.old, l[1:])
			case l[0] == '+':
				c.new = append(c.new, l[1:])
			default:
				return nil, bad("a changed line starts with ' ', '-' or '+', got %q", cut(l, 60))
			}
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("the patch changes no file")
	}
	for _, f := range files {
		if f.op == "update" && len(f.chunks) == 0 && f.moveTo == "" {
			return nil, fmt.Errorf("*** Update File: %s has no changes", f.path)
		}
	}
	return files, nil
}

// apply applies the update's chunks to the file's content the way Codex
// does: each chunk's anchor line, then its old lines, are looked for from
// where the previous chunk ended (exactly, then ignoring trailing space,
// then ignoring surrounding space); a chunk without old lines adds at the
// end.
func (f patchFile) apply(content string) (string, error) {
	lines := strings.Split(content, "\n")
	final := len(lines) > 0 && lines[len(lines)-1] == ""
	if final {
		lines = lines[:len(lines)-1]
	}
	at := 0
	for i, c := range f.chunks {
		if c.anchor != "" {
			k := seek(lines, []string{c.anchor}, at, false)
			if k < 0 {
				return "", fmt.Errorf("chunk %d: the line %q is not in the file", i+1, cut(c.anchor, 80))
			}
			at = k + 1
		}
		if len(c.old) == 0 {
			lines = append(lines, c.new...)
			at = len(lines)
			continue
		}
		old := c.old
		k := seek(lines, old, at, c.eof)
		if k < 0 && len(old) > 0 && old[len(old)-1] == "" {
			old = old[:len(old)-1] // a trailing empty line stands for the file's end
			k = seek(lines, old, at, c.eof)
		}
		if k < 0 {
			return "", fmt.Errorf("chunk %d: its lines are not in the file (from %q)", i+1, cut(firstNonEmpty(c.old), 80))
		}
		newLines := c.new
		if len(old) < len(c.old) && len(newLines) > 0 && newLines[len(newLines)-1] == "" {
			newLines = newLines[:len(newLines)-1]
		}
		lines = append(lines[:k], append(append([]string(nil), newLines...), lines[k+len(old):]...)...)
		at = k + len(newLines)
	}
	out := strings.Join(lines, "\n")
	if final || content == "" {
		out += "\n"
	}
	return out, nil
}

// seek finds want in lines from start: exactly, then with trailing space
// ignored, then with surrounding space ignored; eof looks at the end first.
func seek(lines, want []string, start int, eof bool) int {
	for _, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t") },
		strings.TrimSpace,
	} {
		match := func(k int) bool {
			for j, w := range want {
				if norm(lines[k+j]) != norm(w) {
					return false
				}
			}
			return true
		}
		if eof && len(lines)-len(want) >= start && match(len(lines)-len(want)) {
			return len(lines) - len(want)
		}
		for k := start; k+len(want) <= len(lines); k++ {
			if match(k) {
				return k
			}
		}
	}
	return -1
}

func firstNonEmpty(lines []string) string {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}
