package bot

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/slack-go/slack"
)

// homeWatch is how long after opening App Home a person's tab is kept
// fresh as questions come and go.
const homeWatch = 24 * time.Hour

// recentAnswers is how many of a person's own answers App Home lists.
const recentAnswers = 10

// homes keeps the App Home tab of people who opened it up to date: their
// queue (questions waiting on them, answerable there) and recent answers.
type homes struct {
	b     *Bot
	mu    sync.Mutex
	users map[string]time.Time // user → when they last opened the tab
	last  map[string]time.Time // user → last publish
	dirty map[string]bool
	wake  chan struct{}
}

func newHomes(b *Bot) *homes {
	return &homes{b: b, users: map[string]time.Time{}, last: map[string]time.Time{}, dirty: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// opened publishes user's tab now and keeps it fresh from now on.
func (h *homes) opened(ctx context.Context, user string) {
	h.mu.Lock()
	h.users[user] = time.Now()
	h.last[user] = time.Now()
	delete(h.dirty, user)
	h.mu.Unlock()
	if err := h.publish(ctx, user); err != nil {
		h.b.log.Warn("publishing App Home failed", "user", user, "err", err)
	}
}

// touched marks every watched tab stale after a question event.
func (h *homes) touched(ev *hitl.Event) {
	if ev.QuestionID == "" || ev.Type == hitl.EventRefused {
		return
	}
	h.mu.Lock()
	for u, at := range h.users {
		if time.Since(at) > homeWatch {
			delete(h.users, u)
			continue
		}
		h.dirty[u] = true
	}
	n := len(h.dirty)
	h.mu.Unlock()
	if n > 0 {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

// run republishes stale tabs, at most once per HomeRefresh per person.
func (h *homes) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
		}
		for ctx.Err() == nil {
			user, wait := h.nextDirty()
			if user == "" && wait == 0 {
				break
			}
			if user == "" {
				sleep(ctx, wait)
				continue
			}
			if err := h.publish(ctx, user); err != nil {
				h.b.log.Warn("refreshing App Home failed", "user", user, "err", err)
			}
		}
	}
}

// nextDirty returns a stale tab that may be refreshed now, or how long to
// wait for one.
func (h *homes) nextDirty() (string, time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var wait time.Duration
	for u := range h.dirty {
		due := h.last[u].Add(h.b.cfg.HomeRefresh)
		if d := time.Until(due); d > 0 {
			if wait == 0 || d < wait {
				wait = d
			}
			continue
		}
		delete(h.dirty, u)
		h.last[u] = time.Now()
		return u, 0
	}
	return "", wait
}

// publish renders and publishes user's tab.
func (h *homes) publish(ctx context.Context, user string) error {
	b := h.b
	page, err := b.questions.QuestionPage(ctx, hitl.QuestionFilter{Status: hitl.StatusPending, Limit: hitl.MaxPageSize})
	if err != nil {
		return err
	}
	pending := page.Questions
	var waiting []*hitl.Question
	for _, q := range pending {
		if b.waitsOn(ctx, q, user) {
			waiting = append(waiting, q)
		}
	}
	recent, err := h.recent(ctx, user)
	if err != nil {
		return err
	}
	view := blocks.HomeView(user, waiting, recent, b.messageOptions())
	_, err = b.api.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: user, View: view})
	return err
}

// recent returns the questions user answered, newest first.
func (h *homes) recent(ctx context.Context, user string) ([]*hitl.Question, error) {
	page, err := h.b.questions.QuestionPage(ctx, hitl.QuestionFilter{RespondedBy: actor(user), Reverse: true, Limit: recentAnswers})
	if err != nil {
		return nil, err
	}
	qs := page.Questions
	var mine []*hitl.Question
	for _, q := range qs {
		if q.RespondedBy == actor(user) {
			mine = append(mine, q)
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].RespondedAt.After(*mine[j].RespondedAt) })
	if len(mine) > recentAnswers {
		mine = mine[:recentAnswers]
	}
	return mine, nil
}

// waitsOn reports whether q waits on user: assigned to them (or a group of
// theirs), or unassigned and theirs to answer.
func (b *Bot) waitsOn(ctx context.Context, q *hitl.Question, user string) bool {
	return b.cfg.Access.WaitsOn(q, user, b.groups.memberOf(ctx, user, b.cfg.Access.Groups(q)))
}
