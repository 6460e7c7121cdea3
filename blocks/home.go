package blocks

import (
	"slices"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// HomeView renders user's App Home: the questions waiting on them, newest
// first, each compact and answerable right there, then their recent
// answers. It stays within MaxViewBlocks: what does not fit is counted in
// a "…and N more — use `hitl pending`" line.
func HomeView(user string, waiting, recent []*hitl.Question, opts MessageOptions) slack.HomeTabViewRequest {
	return Home{User: user, Waiting: waiting, Recent: recent}.View(opts)
}

// Home is what a person's App Home shows: a page of the questions waiting
// on them (MoreWaiting when the page is not all of them) and their recent
// answers.
type Home struct {
	User        string
	Waiting     []*hitl.Question
	MoreWaiting bool
	Recent      []*hitl.Question
}

// View renders h like HomeView; when more questions wait than h lists, the
// counts say so ("40+").
func (h Home) View(opts MessageOptions) slack.HomeTabViewRequest {
	user, waiting, recent := h.User, h.Waiting, h.Recent
	plus := ""
	if h.MoreWaiting {
		plus = "+"
	}
	seen := map[string]bool{} // a question is listed once: block ids stay unique
	dup := func(q *hitl.Question) bool {
		d := seen[q.ID]
		seen[q.ID] = true
		return d
	}
	waiting = slices.DeleteFunc(sorted(waiting, func(q *hitl.Question) time.Time { return q.CreatedAt }), dup)
	recent = slices.DeleteFunc(sorted(recent, settledAt), dup)

	hello := "Agents are waiting on these questions."
	if u := strings.TrimSpace(user); u != "" {
		hello = "Hi " + mention(u) + ". Agents are waiting on these questions."
	}
	if !opts.Now.IsZero() {
		hello += " Updated " + date(opts.Now) + "."
	}
	bs := []slack.Block{
		slack.NewHeaderBlock(plainText("🙋 Human in the loop")),
		contextBlock(mrkdwn(hello)),
		section("*Waiting on you (" + itoa(len(waiting)) + plus + ")*"),
	}
	const recentReserve = 3 // divider, title, and one line
	if n := approvals(waiting); n >= 2 {
		bs = append(bs, ReviewBlock(n)) // batch.go
	}
	if len(waiting) == 0 {
		bs = append(bs, contextBlock(mrkdwn("Nothing is waiting on you. 🎉")))
	}
	cut := false
	for i, q := range waiting {
		item := homeItem(q)
		reserve := recentReserve
		if i < len(waiting)-1 || h.MoreWaiting {
			reserve++ // the "more" line
		}
		if len(bs)+len(item)+reserve > MaxViewBlocks {
			bs = append(bs, section("_…and "+itoa(len(waiting)-i)+plus+" more — use `hitl pending`_"))
			cut = true
			break
		}
		bs = append(bs, item...)
	}
	if h.MoreWaiting && !cut {
		bs = append(bs, section("_…and more — use `hitl pending`_"))
	}

	bs = append(bs, slack.NewDividerBlock(), section("*Your recent answers*"))
	if len(recent) == 0 {
		bs = append(bs, contextBlock(mrkdwn("No answers yet.")))
	}
	for i, q := range recent {
		reserve := 0
		if i < len(recent)-1 {
			reserve = 1
		}
		if len(bs)+1+reserve > MaxViewBlocks {
			bs = append(bs, contextBlock(mrkdwn("…and "+itoa(len(recent)-i)+" more")))
			break
		}
		bs = append(bs, recentItem(q, opts))
	}
	return slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: bs}}
}

// homeItem is a waiting question, compact: its text, a context line and
// its inputs.
func homeItem(q *hitl.Question) []slack.Block {
	text, _ := escapeCut(strings.TrimSpace(q.Question), 700, ellipsis)
	bs := []slack.Block{section(typeEmoji(q.Type) + " " + text)}
	var els []slack.MixedElement
	if a := oneLine(q.Asker); a != "" {
		els = append(els, plainText("🔑 "+plain(a, 100, "")))
	}
	if a := oneLine(claimedAgent(q)); a != "" {
		els = append(els, plainText("🤖 agent (says): "+plain(a, 100, "")))
	}
	if id := oneLine(q.RunID); id != "" {
		els = append(els, plainText("Run "+plain(id, 100, "")))
	}
	if q.TimeoutAt != nil {
		els = append(els, mrkdwn("⏳ by "+date(*q.TimeoutAt)))
	}
	if sensitive(q) {
		els = append(els, plainText("🔒 sensitive"))
	}
	if n := oneLine(q.Notice); n != "" {
		els = append(els, plainText("⚠️ "+plain(n, 300, "")))
	}
	els = append(els, plainText("ID "+plain(q.ID, 100, "?")))
	bs = append(bs, contextBlock(els...))
	if in := inputs(q); in != nil {
		bs = append(bs, in)
	}
	return bs
}

// recentItem is a settled question in one section: the question's start,
// then its outcome.
func recentItem(q *hitl.Question, opts MessageOptions) slack.Block {
	text, _ := escapeCut(oneLine(q.Question), 200, ellipsis)
	if text == "" {
		text = "_(no question text)_"
	}
	return section(text + "\n" + outcomeText(q, opts, 600))
}

// sorted returns the non-nil questions of qs, newest first by key.
func sorted(qs []*hitl.Question, key func(*hitl.Question) time.Time) []*hitl.Question {
	out := make([]*hitl.Question, 0, len(qs))
	for _, q := range qs {
		if q != nil {
			out = append(out, q)
		}
	}
	slices.SortStableFunc(out, func(a, b *hitl.Question) int { return key(b).Compare(key(a)) })
	return out
}

func settledAt(q *hitl.Question) time.Time {
	if q.RespondedAt != nil {
		return *q.RespondedAt
	}
	return q.CreatedAt
}

// approvals counts the pending approvals among qs.
func approvals(qs []*hitl.Question) int {
	n := 0
	for _, q := range qs {
		if q.Pending() && q.ResponseType == hitl.ApprovalResponse {
			n++
		}
	}
	return n
}
