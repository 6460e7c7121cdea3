package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVisible(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"plain text is unchanged":               {"Deploy build 41? ✅ ünïcode 👩‍💻", "Deploy build 41? ✅ ünïcode 👩‍💻"},
		"ESC is <U+001B>":                       {"\x1b[2K", "<U+001B>[2K"},
		"a title sequence cannot set the title": {"\x1b]0;pwned\x07", "<U+001B>]0;pwned<U+0007>"},
		"carriage return is <U+000D>":           {"a\rb", "a<U+000D>b"},
		"NUL is <U+0000>":                       {"a\x00b", "a<U+0000>b"},
		"newline and tab are shown on one line": {"a\nb\tc", "a<U+000A>b<U+0009>c"},
		"DEL is <U+007F>":                       {"a\x7fb", "a<U+007F>b"},
		"C1 CSI is <U+009B>":                    {"a\u009b2Jb", "a<U+009B>2Jb"},
		"bidi override is <U+202E>":             {"a\u202eb", "a<U+202E>b"},
		"bidi isolate is <U+2066>":              {"a\u2066b\u2069", "a<U+2066>b<U+2069>"},
		"a zero-width space is <U+200B>":        {"r\u200bm", "r<U+200B>m"},
		"a byte that is not UTF-8 is <0x9B>":    {"a\x9bb", "a<0x9B>b"},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, visible(tc.in))
		})
	}
	t.Run("visibleLines keeps newlines and tabs and nothing else", func(t *testing.T) {
		assert.Equal(t, "line 1\nline\t2<U+000D><U+001B>[2K", visibleLines("line 1\nline\t2\r\x1b[2K"))
	})
	t.Run("a table cell has tabs and newlines as single spaces", func(t *testing.T) {
		assert.Equal(t, "a b c <U+000D>", cell("a\t\tb\nc \r", 20))
	})
	t.Run("a long table cell is cut with an ellipsis", func(t *testing.T) {
		assert.Equal(t, "abcd…", cell("abcdefgh", 5))
	})
	t.Run("JSON keeps its meaning with terminal controls escaped", func(t *testing.T) {
		in := "x\x1b]0;t\x07\u009b\u202e\x7f\u200b\U000E0069y"
		b, err := json.Marshal(map[string]string{"q": in})
		require.NoError(t, err)
		out := jsonVisible(b)
		assert.NotContains(t, string(out), "\x1b")
		assert.NotContains(t, string(out), "\u009b")
		assert.NotContains(t, string(out), "\u202e")
		assert.NotContains(t, string(out), "\x7f")
		assert.NotContains(t, string(out), "\u200b")
		assert.NotContains(t, string(out), "\U000E0069")
		var got map[string]string
		require.NoError(t, json.Unmarshal(out, &got))
		assert.Equal(t, in, got["q"])
	})
}
