package blocks

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	cases := map[string]string{
		"<!channel>":         "&lt;!channel&gt;",
		"a & b":              "a &amp; b",
		"&amp;":              "&amp;amp;",
		"<@U123|bob>":        "&lt;@U123|bob&gt;",
		"*bold* `code` _i_ ": "*bold* `code` _i_ ",
		"":                   "",
	}
	for in, want := range cases {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLenCountsUTF16Units(t *testing.T) {
	cases := map[string]int{"": 0, "abc": 3, "é": 1, "🎉": 2, "👩‍👩‍👧": 8, "\xff": 1, "مرحبا": 5}
	for s, want := range cases {
		if got := Len(s); got != want {
			t.Errorf("Len(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	cases := []struct {
		name, s string
		n       int
		marker  string
		want    string
	}{
		{"short_is_kept", "hello", 5, "…", "hello"},
		{"long_is_cut_with_marker", "hello world", 8, "…", "hello w…"},
		{"trailing_space_dropped", "hello world", 7, "…", "hello…"},
		{"emoji_not_split", "ab🎉cd", 4, "…", "ab…"},
		{"emoji_fits", "ab🎉cd", 5, "…", "ab🎉…"},
		{"marker_longer_than_n", "hello world", 3, "[cut]", "[cu"},
		{"zero", "hello", 0, "…", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Truncate(c.s, c.n, c.marker)
			if got != c.want || Len(got) > max(c.n, 0) || !utf8.ValidString(got) {
				t.Errorf("Truncate(%q, %d, %q) = %q, want %q", c.s, c.n, c.marker, got, c.want)
			}
		})
	}
}

func TestEscapeCutNeverSplitsAnEntity(t *testing.T) {
	s := strings.Repeat("&", 100)
	for n := 1; n < 60; n++ {
		out, cut := escapeCut(s, n, "…")
		if !cut || Len(out) > n || strings.Count(out, "&") != strings.Count(out, "&amp;") {
			t.Fatalf("n=%d: %q", n, out)
		}
	}
}

func TestCleanShowsBidiAndControls(t *testing.T) {
	if got := clean("a\u202eb\u2066c\x00d\te\nf\u200bg"); got != "a<U+202E>b<U+2066>c<U+0000>d\te\nf<U+200B>g" {
		t.Errorf("clean = %q", got)
	}
	out, _ := escapeCut("مرحبا \u202e", 100, "")
	if out != "مرحبا &lt;U+202E&gt;" {
		t.Errorf("RTL text changed: %q", out)
	}
}

func TestUnfenceBreaksEveryTripleBacktick(t *testing.T) {
	for n := 0; n < 12; n++ {
		s := unfence(strings.Repeat("`", n))
		if strings.Contains(s, "```") {
			t.Errorf("%d backticks: %q", n, s)
		}
	}
}

func TestSplit(t *testing.T) {
	t.Run("chunks_fit_and_keep_everything", func(t *testing.T) {
		s := strings.Repeat("word & <tag> ", 2000)
		chunks := split(s, 3000)
		joined := strings.Join(chunks, " ")
		if strings.Count(joined, "word") != 2000 || strings.Count(joined, "&lt;tag&gt;") != 2000 {
			t.Error("split lost text")
		}
		for i, c := range chunks {
			if Len(c) > 3000 {
				t.Errorf("chunk %d: %d", i, Len(c))
			}
		}
	})
	t.Run("breaks_at_spaces", func(t *testing.T) {
		for _, c := range split(strings.Repeat("abcdefghi ", 1000), 3000) {
			if !strings.HasSuffix(c, "abcdefghi") {
				t.Errorf("chunk ends mid-word: %q", c[len(c)-12:])
			}
		}
	})
	t.Run("no_spaces_still_fits", func(t *testing.T) {
		chunks := split(strings.Repeat("<", 2000), 3000)
		if len(chunks) != 3 || chunks[0] != strings.Repeat("&lt;", 750) {
			t.Errorf("%d chunks", len(chunks))
		}
	})
	t.Run("empty", func(t *testing.T) {
		if c := split("  \n ", 3000); len(c) != 0 {
			t.Errorf("%q", c)
		}
	})
}

func TestMentionsAndActors(t *testing.T) {
	cases := map[string]string{
		mention("U024BE7LH"):                   "<@U024BE7LH>",
		mention("W024BE7LH"):                   "<@W024BE7LH>",
		mention("S0614TZR7"):                   "<!subteam^S0614TZR7>",
		mention("<!channel>"):                  "&lt;!channel&gt;",
		mention("u024be7lh"):                   "u024be7lh",
		actor("slack:U024BE7LH"):               "<@U024BE7LH>",
		actor("slack:S0614TZR7"):               "slack:S0614TZR7",
		actor("slack:<!here>"):                 "slack:&lt;!here&gt;",
		actor("cli:alice"):                     "cli:alice",
		actor(""):                              "someone",
		date(t0):                               "<!date^1741964966^{date_short_pretty} at {time}|Fri, 14 Mar 2025 15:09:26 UTC>",
		date(t0.In(time.FixedZone("x", 3600))): "<!date^1741964966^{date_short_pretty} at {time}|Fri, 14 Mar 2025 15:09:26 UTC>",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
