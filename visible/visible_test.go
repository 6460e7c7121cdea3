package visible_test

import (
	"testing"

	"github.com/hitlbot/hitl/visible"
)

// TrojanSource is the line of Boucher and Anderson's "Trojan Source"
// (CVE-2021-42574): it reads as a comment after the string, while the
// string runs to the end.
const TrojanSource = "access_level = \"user\u202e \u2066// Check if admin\u2069 \u2066\""

func TestText(t *testing.T) {
	tests := []struct {
		name, in, text, line string
		flagged              bool
	}{
		{name: "plain text is as it is", in: "Deploy to prod?", text: "Deploy to prod?", line: "Deploy to prod?"},
		{name: "tabs and newlines are kept, on one line shown", in: "a\tb\nc", text: "a\tb\nc", line: "a<U+0009>b<U+000A>c"},
		{name: "letters of any script are as they are", in: "café ñ 日本 שלום مرحبا 👍", text: "café ñ 日本 שלום مرحبا 👍", line: "café ñ 日本 שלום مرحبا 👍"},
		{name: "a Trojan-source line is shown and flagged", in: TrojanSource, flagged: true,
			text: `access_level = "user<U+202E> <U+2066>// Check if admin<U+2069> <U+2066>"`,
			line: `access_level = "user<U+202E> <U+2066>// Check if admin<U+2069> <U+2066>"`},
		{name: "embeddings and overrides are shown", in: "\u202a\u202b\u202c\u202d\u202e", flagged: true,
			text: "<U+202A><U+202B><U+202C><U+202D><U+202E>", line: "<U+202A><U+202B><U+202C><U+202D><U+202E>"},
		{name: "isolates are shown", in: "\u2066\u2067\u2068\u2069", flagged: true, text: "<U+2066><U+2067><U+2068><U+2069>", line: "<U+2066><U+2067><U+2068><U+2069>"},
		{name: "direction marks are shown", in: "a\u200eb\u200fc\u061cd", flagged: true, text: "a<U+200E>b<U+200F>c<U+061C>d", line: "a<U+200E>b<U+200F>c<U+061C>d"},
		{name: "zero-width characters are shown", in: "r\u200bm\u200c-\u200d-\u2060-\ufeff", flagged: true,
			text: "r<U+200B>m<U+200C>-<U+200D>-<U+2060>-<U+FEFF>", line: "r<U+200B>m<U+200C>-<U+200D>-<U+2060>-<U+FEFF>"},
		{name: "a zero-width joiner between emoji is kept", in: "👩‍💻 👩🏽‍🚀 👩‍👩‍👧", text: "👩‍💻 👩🏽‍🚀 👩‍👩‍👧", line: "👩‍💻 👩🏽‍🚀 👩‍👩‍👧"},
		{name: "a zero-width joiner between emoji is kept beside a shown character", in: "👩‍💻\u202e", flagged: true, text: "👩‍💻<U+202E>", line: "👩‍💻<U+202E>"},
		{name: "a zero-width joiner elsewhere is shown", in: "ad\u200dmin 👩\u200d", flagged: true, text: "ad<U+200D>min 👩<U+200D>", line: "ad<U+200D>min 👩<U+200D>"},
		{name: "tag characters (hidden ASCII) are shown", in: "ok\U000E0069\U000E0067", flagged: true, text: "ok<U+E0069><U+E0067>", line: "ok<U+E0069><U+E0067>"},
		{name: "C0 controls but tab and newline are shown", in: "a\x1b[2Jb\rc\x00", flagged: true, text: "a<U+001B>[2Jb<U+000D>c<U+0000>", line: "a<U+001B>[2Jb<U+000D>c<U+0000>"},
		{name: "DEL and C1 controls are shown", in: "a\x7fb\u0085c\u009b", flagged: true, text: "a<U+007F>b<U+0085>c<U+009B>", line: "a<U+007F>b<U+0085>c<U+009B>"},
		{name: "line and paragraph separators are shown", in: "a\u2028b\u2029", flagged: true, text: "a<U+2028>b<U+2029>", line: "a<U+2028>b<U+2029>"},
		{name: "letters that render as nothing are shown", in: "a\u3164b\u115fc\u034f", flagged: true, text: "a<U+3164>b<U+115F>c<U+034F>", line: "a<U+3164>b<U+115F>c<U+034F>"},
		{name: "the soft hyphen is shown", in: "pass\u00adword", flagged: true, text: "pass<U+00AD>word", line: "pass<U+00AD>word"},
		{name: "bytes that are not UTF-8 are shown", in: "a\xffb\xc3", flagged: true, text: "a<0xFF>b<0xC3>", line: "a<0xFF>b<0xC3>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := visible.Text(tt.in); got != tt.text {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.text)
			}
			if got := visible.Line(tt.in); got != tt.line {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.line)
			}
			if got := visible.Has(tt.in); got != tt.flagged {
				t.Errorf("Has(%q) = %v, want %v", tt.in, got, tt.flagged)
			}
			if visible.Has(visible.Text(tt.in)) {
				t.Errorf("Text(%q) still holds a hidden character", tt.in)
			}
		})
	}
}

func TestFlag(t *testing.T) {
	if visible.Flag != "contains characters that change how it reads" {
		t.Fatalf("Flag = %q", visible.Flag)
	}
}
