// Package visible is how every surface (the web inbox, Slack, the
// terminal, e-mail) shows text an agent wrote: characters that are
// invisible or change the direction text reads in — bidirectional
// embeddings, overrides, isolates and marks, zero-width characters,
// controls — are shown as their code point (<U+202E>), and the text is
// flagged (Flag), so that a Trojan-source line reads as what it is. It is
// pure and the one place that says which characters, how they are shown
// and what the flag says.
package visible

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Flag is what every surface says beside a line that holds a character
// Hidden reports.
const Flag = "contains characters that change how it reads"

// invisibleLetters render as nothing though they are letters or marks:
// the combining grapheme joiner, Hangul fillers, Khmer inherent vowels.
var invisibleLetters = []rune{0x034f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x3164, 0xffa0}

// Hidden reports whether r is shown as its code point (but a zero-width
// joiner between two emoji, see Has): every control
// (C0 but tab and newline, DEL, C1), every format character (Unicode's
// Cf: the bidi marks U+200E, U+200F, U+061C, embeddings and overrides
// U+202A–U+202E, isolates U+2066–U+2069, zero-width U+200B–U+200D,
// U+2060–U+2064, U+FEFF, the soft hyphen, tag characters U+E0000–U+E007F
// …), the line and paragraph separators U+2028 and U+2029, and the
// letters that render as nothing (invisibleLetters).
func Hidden(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	case r < 0xa0:
		return false
	}
	for _, l := range invisibleLetters {
		if r == l {
			return true
		}
	}
	return unicode.Is(unicode.Cf, r)
}

// Has reports whether s holds a character Hidden reports, or a byte that
// is not UTF-8: a surface shows Flag beside it. A zero-width joiner
// between two emoji (👩‍💻) is kept: it only joins the pictures.
func Has(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return true
			}
		}
		if Hidden(r) && !joinsEmoji(s, i, r) {
			return true
		}
	}
	return false
}

const zwj = 0x200d

// joinsEmoji reports whether r at s[i] is a zero-width joiner between two
// emoji (a symbol, or a skin tone or emoji presentation selector after
// one).
func joinsEmoji(s string, i int, r rune) bool {
	if r != zwj {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(zwj):])
	emoji := func(r rune) bool { return r != utf8.RuneError && unicode.Is(unicode.So, r) }
	return (emoji(before) || (before >= 0x1f3fb && before <= 0x1f3ff) || before == 0xfe0f) && emoji(after)
}

// Text returns s with every Hidden character as its code point
// ("<U+202E>") and every byte that is not UTF-8 as its value ("<0xFF>").
// Tabs and newlines are kept.
func Text(s string) string { return show(s, false) }

// Line is Text on one line: tabs and newlines are shown too ("<U+0009>",
// "<U+000A>"), for a name, an id or a table's cell.
func Line(s string) string { return show(s, true) }

// Rune is how a Hidden character is shown: "<U+202E>".
func Rune(r rune) string { return fmt.Sprintf("<U+%04X>", r) }

func show(s string, oneLine bool) string {
	if !Has(s) && (!oneLine || !strings.ContainsAny(s, "\t\n")) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "<0x%02X>", s[i])
		case (Hidden(r) && !joinsEmoji(s, i, r)) || (oneLine && (r == '\t' || r == '\n')):
			b.WriteString(Rune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
