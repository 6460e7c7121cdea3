package web_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var dueText = regexp.MustCompile(`(Due \d{3}|Never \d)`)

// TestInboxDeadlineAcrossPages: 125 questions, the later ones asked with
// the sooner deadlines, and a few that never time out asked first: every
// inbox (a Slack user's queue, a token's unassigned list, the tokenless
// person's pending list) shows them soonest deadline first across its
// pages, not only within each page, and those that never time out last.
func TestInboxDeadlineAcrossPages(t *testing.T) {
	for _, c := range []struct {
		name      string
		tokenless bool
		token     string
	}{
		{"a Slack user's queue", false, "alice-token-0123456789"},
		{"a token's unassigned list", false, "root-token-0123456789a"},
		{"the tokenless person's pending list", true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.tokenless)
			for i := range 5 {
				e.ask("r0", hitl.NewQuestion{Question: fmt.Sprintf("Never %d", i), Type: hitl.NonBlocking, DefaultResponse: &hitl.Response{Value: "no"}})
			}
			const n = 120
			var want []string
			for i := range n {
				minutes := float64(10 + n - i)
				n := hitl.NewQuestion{Question: fmt.Sprintf("Due %03d", n-1-i), TimeoutMinutes: &minutes}
				if i%3 == 0 && !c.tokenless && c.token == "alice-token-0123456789" {
					n.Assignees = []string{"U0ALICE"}
				}
				e.ask(fmt.Sprintf("r%d", i%4), n)
				want = append(want, fmt.Sprintf("Due %03d", i))
			}
			b := e.browser(t)
			if c.token != "" {
				b.signIn(c.token)
			}
			var got []string
			path := "/"
			for pages := 0; ; pages++ {
				require.Less(t, pages, 10, "paging ends")
				body := b.get(path).body
				assert.LessOrEqual(t, strings.Count(body, `class="q"`), 50, "a page of 50")
				for _, m := range dueText.FindAllString(body, -1) {
					if len(got) == 0 || got[len(got)-1] != m {
						got = append(got, m)
					}
				}
				i := strings.Index(body, "cursor=")
				if i < 0 {
					break
				}
				path = "/?cursor=" + body[i+len("cursor="):i+strings.Index(body[i:], `"`)]
			}
			require.Len(t, got, n+5, "every question once: %v", got)
			assert.Equal(t, want, got[:n], "soonest deadline first across pages")
			never := got[n:]
			slices.Sort(never)
			assert.Equal(t, []string{"Never 0", "Never 1", "Never 2", "Never 3", "Never 4"}, never, "those that never time out last")
		})
	}
}
