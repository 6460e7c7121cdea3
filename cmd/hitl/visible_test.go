package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVisible(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"plain text is unchanged":                {"Deploy build 41? ✅ ünïcode", "Deploy build 41? ✅ ünïcode"},
		"ESC is ^[":                              {"\x1b[2K", "^[[2K"},
		"a title sequence cannot set the title":  {"\x1b]0;pwned\x07", "^[]0;pwned^G"},
		"carriage return is ^M":                  {"a\rb", "a^Mb"},
		"NUL is ^@":                              {"a\x00b", "a^@b"},
		"newline and tab are ^J and ^I":          {"a\nb\tc", "a^Jb^Ic"},
		"DEL is ^?":                              {"a\x7fb", "a^?b"},
		"C1 CSI is a \\u escape":                 {"a\u009b2Jb", `a\u009b2Jb`},
		"bidi override is a \\u escape":          {"a\u202eb", `a\u202eb`},
		"bidi isolate is a \\u escape":           {"a\u2066b\u2069", `a\u2066b\u2069`},
		"a byte that is not UTF-8 is \\x escape": {"a\x9bb", `a\x9bb`},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, visible(tc.in))
		})
	}
	t.Run("visibleLines keeps newlines and nothing else", func(t *testing.T) {
		assert.Equal(t, "line 1\nline 2^M^[[2K", visibleLines("line 1\nline 2\r\x1b[2K"))
	})
	t.Run("a table cell has tabs and newlines as single spaces", func(t *testing.T) {
		assert.Equal(t, "a b c ^M", cell("a\t\tb\nc \r", 20))
	})
	t.Run("a long table cell is cut with an ellipsis", func(t *testing.T) {
		assert.Equal(t, "abcd…", cell("abcdefgh", 5))
	})
	t.Run("JSON keeps its meaning with terminal controls escaped", func(t *testing.T) {
		in := "x\x1b]0;t\x07\u009b\u202e\x7fy"
		b, err := json.Marshal(map[string]string{"q": in})
		require.NoError(t, err)
		out := jsonVisible(b)
		assert.NotContains(t, string(out), "\x1b")
		assert.NotContains(t, string(out), "\u009b")
		assert.NotContains(t, string(out), "\u202e")
		assert.NotContains(t, string(out), "\x7f")
		var got map[string]string
		require.NoError(t, json.Unmarshal(out, &got))
		assert.Equal(t, in, got["q"])
	})
}
