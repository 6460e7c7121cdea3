package blocks

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/visible"
)

// Markers put where text was cut.
const (
	// MarkerThread ends a question cut in a message; the bot posts the full
	// text in the thread (FullTextChunks).
	MarkerThread = "…\n_(truncated — full text in the thread)_"
	// MarkerCut ends text cut where no full copy is offered.
	MarkerCut = "… (truncated)"
	ellipsis  = "…"
)

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// Escape makes s safe to put in mrkdwn text: & < > become &amp; &lt; &gt;,
// so s can never produce a mention (<!channel>, <!here>, <@U…>), a user-group
// ping or a link. Formatting characters (* _ ~ `) are left alone.
func Escape(s string) string { return escaper.Replace(s) }

// Truncate returns s if Len(s) <= n, else s cut on a rune boundary with
// marker appended so that the result's Len is at most n. Trailing spaces
// before the marker are dropped. A marker longer than n is itself cut.
func Truncate(s string, n int, marker string) string {
	if n <= 0 {
		return ""
	}
	if Len(s) <= n {
		return s
	}
	budget := n - Len(marker)
	if budget < 0 {
		return Truncate(marker, n, "")
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		l := runeLen(r)
		if used+l > budget {
			break
		}
		b.WriteRune(r)
		used += l
	}
	return strings.TrimRightFunc(b.String(), unicode.IsSpace) + marker
}

// clean shows what agent text must not carry into Slack unseen:
// characters that are invisible or change the direction text reads in
// (bidi embeddings, overrides, isolates and marks, zero-width characters,
// controls other than tab and newline) become their code points
// ("<U+202E>", package visible); flag says so beside the text.
func clean(s string) string { return visible.Text(s) }

// flagLine is the line that says what holds such characters ("The question"),
// "" when s holds none: "\n⚠️ _The question contains characters that
// change how it reads_".
func flagLine(what, s string) string {
	if !visible.Has(s) {
		return ""
	}
	return "\n⚠️ _" + what + " " + visible.Flag + "_"
}

// escapeCut cleans and escapes s and cuts it so that the escaped result, marker
// included, has Len at most n. It never splits an entity. cut reports
// whether anything was left out.
func escapeCut(s string, n int, marker string) (out string, cut bool) {
	s = clean(s)
	if e := Escape(s); Len(e) <= n {
		return e, false
	}
	budget := n - Len(marker)
	if budget < 0 {
		return Truncate(marker, n, ""), true
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		piece := escapeRune(r)
		l := Len(piece)
		if used+l > budget {
			break
		}
		b.WriteString(piece)
		used += l
	}
	return strings.TrimRightFunc(b.String(), unicode.IsSpace) + marker, true
}

func escapeRune(r rune) string {
	switch r {
	case '&':
		return "&amp;"
	case '<':
		return "&lt;"
	case '>':
		return "&gt;"
	}
	return string(r)
}

// plain prepares agent text for a plain_text object: Slack shows it as is
// (no mentions, no formatting), so it only needs cleaning and cutting. Empty text becomes
// alt, since Slack rejects empty text objects.
func plain(s string, n int, alt string) string {
	s = strings.TrimSpace(clean(s))
	if s == "" {
		s = alt
	}
	return Truncate(s, n, ellipsis)
}

// oneLine replaces line breaks and tabs by spaces, for text shown inline.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// unfence breaks every run of three or more backticks with hair spaces
// (U+200A: thin, yet not hidden, so clean leaves it), so text put inside a
// ``` code block cannot close it.
func unfence(s string) string { return strings.ReplaceAll(clean(s), "``", "`\u200a`") }

var slackID = regexp.MustCompile(`^[UWS][A-Z0-9]{2,20}$`)

// mention renders a Slack user (U…, W…) or user group (S…) id as a mention.
// Anything else is shown escaped, never as a mention.
func mention(id string) string {
	if !slackID.MatchString(id) {
		out, _ := escapeCut(oneLine(id), 80, ellipsis)
		return out
	}
	if id[0] == 'S' {
		return "<!subteam^" + id + ">"
	}
	return "<@" + id + ">"
}

// mentions renders ids as mentions separated by spaces.
func mentions(ids []string) string {
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" {
			parts = append(parts, mention(id))
		}
	}
	return strings.Join(parts, " ")
}

// actor renders who did something (hitl.Question.RespondedBy): a Slack
// user as a mention, anything else ("cli:alice", "api:ci") escaped.
func actor(a string) string {
	if id, ok := strings.CutPrefix(a, "slack:"); ok && slackID.MatchString(id) && id[0] != 'S' {
		return "<@" + id + ">"
	}
	if a == "" {
		return "someone"
	}
	out, _ := escapeCut(oneLine(auth.PersonName(a)), 100, ellipsis)
	return out
}

// date renders t as a Slack date token, shown in the reader's time zone,
// with an RFC 1123 fallback.
func date(t time.Time) string {
	return fmt.Sprintf("<!date^%d^{date_short_pretty} at {time}|%s>", t.Unix(), t.UTC().Format(time.RFC1123))
}

// split escapes s and cuts it into chunks of Len at most n, at a line or
// word break when one is in the chunk's last quarter. It never splits an
// entity; whitespace-only chunks are dropped.
func split(s string, n int) []string {
	s = clean(s)
	var chunks []string
	var cur strings.Builder
	curLen, brk, brkLen := 0, -1, 0
	flush := func(text string) {
		if text = strings.TrimRightFunc(text, unicode.IsSpace); strings.TrimSpace(text) != "" {
			chunks = append(chunks, text)
		}
	}
	for _, r := range s {
		piece := escapeRune(r)
		l := Len(piece)
		if curLen+l > n {
			text := cur.String()
			cur.Reset()
			curLen = 0
			if brk > 0 && brkLen >= n*3/4 {
				flush(text[:brk])
				rest := strings.TrimLeftFunc(text[brk:], unicode.IsSpace)
				cur.WriteString(rest)
				curLen = Len(rest)
			} else {
				flush(text)
			}
			brk = -1
		}
		cur.WriteString(piece)
		curLen += l
		if r == '\n' || r == ' ' {
			brk, brkLen = cur.Len(), curLen
		}
	}
	flush(cur.String())
	return chunks
}

func itoa(i int) string { return strconv.Itoa(i) }
