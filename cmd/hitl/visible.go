package main

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text that agents and people wrote reaches a terminal through these
// functions, so that no question can move the cursor, clear the screen,
// set the window title or reorder what is shown:
//
//   - ESC is ^[, the other C0 controls ^@ … ^_ (caret notation), DEL ^?;
//   - C1 controls (U+0080–U+009F) and bidi overrides and isolates
//     (U+202A–U+202E, U+2066–U+2069) are \u0085-style escapes;
//   - bytes that are not UTF-8 are \x9b-style escapes.

// visible returns s on one line with every control made visible (a
// newline is ^J, a tab ^I).
func visible(s string) string { return escape(s, false) }

// visibleLines is visible but keeps newlines, for output that is
// deliberately multi-line (a question's text at a prompt, a message).
func visibleLines(s string) string { return escape(s, true) }

// cell returns s for one cell of a table: tabs and newlines become
// spaces, runs of spaces one space, controls visible, and at most n
// characters (the last one … when cut).
func cell(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }), " ")
	s = visible(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func escape(s string, keepNewlines bool) string {
	if safe(s, keepNewlines) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r < 0x20:
			b.WriteByte('^')
			b.WriteByte(byte(r) + 0x40)
		case r == 0x7f:
			b.WriteString("^?")
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// safe reports whether s has nothing to escape (the common case).
func safe(s string, keepNewlines bool) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
		if (r < 0x20 && !(r == '\n' && keepNewlines)) || r == 0x7f || unsafeRune(r) {
			return false
		}
	}
	return true
}

// unsafeRune reports C1 controls and bidi overrides and isolates.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// jsonVisible escapes, inside JSON text, what encoding/json leaves raw and
// a terminal would obey: DEL, C1 controls and bidi overrides become \u
// escapes. The JSON means the same. (encoding/json already escapes C0
// controls and replaces bytes that are not UTF-8.)
func jsonVisible(b []byte) []byte {
	if !bytes.ContainsFunc(b, func(r rune) bool { return r == 0x7f || unsafeRune(r) }) {
		return b
	}
	var out bytes.Buffer
	for _, r := range string(b) {
		if r == 0x7f || unsafeRune(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.WriteRune(r)
		}
	}
	return out.Bytes()
}
