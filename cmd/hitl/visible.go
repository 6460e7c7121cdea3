package main

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf16"

	visiblepkg "github.com/hitlbot/hitl/visible"
)

// Text that agents and people wrote reaches a terminal through these
// functions, so that no question can move the cursor, clear the screen,
// set the window title or reorder what is shown. The rule is package
// visible's, shared with the web, Slack and e-mail: every control (ESC,
// CR, C1 …), bidi override, isolate or mark, and zero-width character is
// shown as its code point (<U+001B>, <U+202E>), a byte that is not UTF-8
// as <0x9B>; flagged says so beside the text.

// visible returns s on one line with every such character shown (a
// newline is <U+000A>, a tab <U+0009>).
func visible(s string) string { return visiblepkg.Line(s) }

// visibleLines is visible but keeps newlines and tabs, for output that is
// deliberately multi-line (a question's text at a prompt, a message).
func visibleLines(s string) string { return visiblepkg.Text(s) }

// flagged is the line that says what in s changes how it reads ("⚠ The
// question contains characters that change how it reads"), "" when
// nothing does.
func flagged(what, s string) string {
	if !visiblepkg.Has(s) {
		return ""
	}
	return "⚠ " + what + " " + visiblepkg.Flag
}

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

// jsonVisible escapes, inside JSON text, what encoding/json leaves raw and
// would change how a terminal shows it: the characters package visible
// shows (DEL, C1 controls, bidi overrides, zero-width characters …)
// become \u escapes. The JSON means the same. (encoding/json already
// escapes C0 controls and replaces bytes that are not UTF-8.)
func jsonVisible(b []byte) []byte {
	if !bytes.ContainsFunc(b, visiblepkg.Hidden) {
		return b
	}
	var out bytes.Buffer
	for _, r := range string(b) {
		switch {
		case !visiblepkg.Hidden(r):
			out.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&out, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
	}
	return out.Bytes()
}
