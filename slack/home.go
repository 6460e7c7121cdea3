package slack

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hitlbot/hitl/blocks"
	goslack "github.com/slack-go/slack"
)

const (
	// homeWatch is how long after opening App Home a person's tab is kept
	// fresh as questions come and go.
	homeWatch = 24 * time.Hour
	// homeWaiting is how many waiting questions App Home reads: more than
	// a tab can show (100 blocks, two or three per question).
	homeWaiting = 40
	// recentAnswers is how many of a person's own answers App Home lists.
	recentAnswers = 10
)

// homes keeps the App Home tab of people who opened it up to date: their
// queue (questions waiting on them, answerable there) and recent answers.
// Changes coalesce: a burst of events refreshes each open tab once, a
// short while after the burst began and at most once per HomeRefresh.
type homes struct {
	b   *Bot
	now func() time.Time

	mu     sync.Mutex
	open   map[string]time.Time // user → when they last opened the tab
	last   map[string]time.Time // user → last publish
	stale  map[string]time.Time // user → when to refresh
	wake   chan struct{}
	settle time.Duration
	// seq is how far this replica has looked at the event log for its
	// tabs (homefeed.go).
	seq atomic.Uint64
}

func newHomes(b *Bot) *homes {
	return &homes{b: b, now: time.Now, open: map[string]time.Time{}, last: map[string]time.Time{},
		stale: map[string]time.Time{}, wake: make(chan struct{}, 1), settle: b.cfg.HomeRefresh / 8}
}

// opened publishes user's tab now and keeps it fresh from now on.
func (h *homes) opened(ctx context.Context, user string) {
	now := h.now()
	h.mu.Lock()
	h.open[user], h.last[user] = now, now
	delete(h.stale, user)
	h.mu.Unlock()
	if err := h.publish(ctx, user); err != nil {
		h.b.log.Warn("publishing App Home failed", "user", user, "err", err)
	}
}

// touched marks every open tab stale. A tab already stale keeps its
// refresh time: that is what coalesces a burst.
func (h *homes) touched() {
	now := h.now()
	h.mu.Lock()
	for u, at := range h.open {
		if now.Sub(at) > homeWatch {
			delete(h.open, u)
			delete(h.last, u)
			delete(h.stale, u)
			continue
		}
		if _, ok := h.stale[u]; !ok {
			due := now.Add(h.settle)
			if next := h.last[u].Add(h.b.cfg.HomeRefresh); next.After(due) {
				due = next
			}
			h.stale[u] = due
		}
	}
	n := len(h.stale)
	h.mu.Unlock()
	if n > 0 {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

// due takes the tabs to refresh now, and says how long until the next
// one is due (0 when none is stale).
func (h *homes) due() (users []string, wait time.Duration) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	for u, at := range h.stale {
		if d := at.Sub(now); d > 0 {
			if wait == 0 || d < wait {
				wait = d
			}
			continue
		}
		delete(h.stale, u)
		h.last[u] = now
		users = append(users, u)
	}
	return users, wait
}

// run republishes stale tabs when they are due.
func (h *homes) run(ctx context.Context) {
	for ctx.Err() == nil {
		users, wait := h.due()
		for _, u := range users {
			if err := h.publish(ctx, u); err != nil {
				h.b.log.Warn("refreshing App Home failed", "user", u, "err", err)
			}
		}
		if len(users) > 0 {
			continue
		}
		timer := time.NewTimer(wait)
		if wait <= 0 {
			timer.Stop() // nothing stale: wait for a change
		}
		select {
		case <-ctx.Done():
		case <-h.wake:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// publish renders and publishes user's tab.
func (h *homes) publish(ctx context.Context, user string) error {
	view, err := h.b.homeView(ctx, user)
	if err != nil {
		return err
	}
	_, err = h.b.api.PublishViewContext(ctx, goslack.PublishViewContextRequest{UserID: user, View: view})
	return err
}

// homeView builds user's tab from a page of each index their queue and
// answers are in.
func (b *Bot) homeView(ctx context.Context, user string) (goslack.HomeTabViewRequest, error) {
	waiting, more, err := b.queue(ctx, user, homeWaiting)
	if err != nil {
		return goslack.HomeTabViewRequest{}, err
	}
	recent, err := b.recent(ctx, user, recentAnswers)
	if err != nil {
		return goslack.HomeTabViewRequest{}, err
	}
	return blocks.Home{User: user, Waiting: waiting, MoreWaiting: more, Recent: recent}.View(b.messageOptions()), nil
}
