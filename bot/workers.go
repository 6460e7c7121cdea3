package bot

import (
	"context"
	"errors"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// workers run the outbox: one goroutine per target (channel or DM) that has
// tasks, each doing its tasks in order, paced, retrying what Slack refused
// for the moment. A task leaves the outbox only when it is done or can never
// be done.
type workers struct {
	b       *Bot
	wake    chan struct{}
	mu      sync.Mutex
	running map[string]bool
	last    map[string]time.Time // last write per target, for pacing
	wg      sync.WaitGroup
}

func newWorkers(b *Bot) *workers {
	return &workers{b: b, wake: make(chan struct{}, 1), running: map[string]bool{}, last: map[string]time.Time{}}
}

// kick tells the dispatcher that tasks were enqueued.
func (w *workers) kick() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run starts a worker for every target with tasks, now and at every kick.
func (w *workers) run(ctx context.Context) {
	defer w.wg.Wait()
	w.kick() // tasks left from before a restart
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		}
		tasks, err := w.b.outbox.SlackTasks(ctx)
		if err != nil {
			w.b.log.Error("slack outbox: reading tasks failed", "err", err)
			continue
		}
		w.mu.Lock()
		for _, t := range tasks {
			if !w.running[t.Target] {
				w.running[t.Target] = true
				w.wg.Add(1)
				go w.drain(ctx, t.Target)
			}
		}
		w.mu.Unlock()
	}
}

// drain does target's tasks until none is left.
func (w *workers) drain(ctx context.Context, target string) {
	defer w.wg.Done()
	var delay time.Duration
	for ctx.Err() == nil {
		t, ok := w.next(ctx, target)
		if !ok {
			return
		}
		w.pace(ctx, target)
		if ctx.Err() != nil {
			return
		}
		err := w.b.do(w.b.calls, t)
		w.mu.Lock()
		w.last[target] = time.Now()
		w.mu.Unlock()
		wait, retry := w.classify(t, err)
		if !retry {
			delay = 0
			continue
		}
		if wait == 0 {
			delay = w.b.backoff(delay)
			wait = delay
		}
		if !sleep(ctx, wait) {
			return
		}
	}
}

// busy reports whether any target has work in flight.
func (w *workers) busy() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.running) > 0
}

// next returns target's oldest task, or false (and the worker retires, under
// the same lock the dispatcher takes) when there is none.
func (w *workers) next(ctx context.Context, target string) (hitl.SlackTask, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	tasks, err := w.b.outbox.SlackTasks(ctx)
	if err == nil {
		for _, t := range tasks {
			if t.Target == target {
				return t, true
			}
		}
	}
	delete(w.running, target)
	return hitl.SlackTask{}, false
}

// pace waits until the target's last write is PostInterval old.
func (w *workers) pace(ctx context.Context, target string) {
	w.mu.Lock()
	last := w.last[target]
	w.mu.Unlock()
	if !last.IsZero() {
		sleep(ctx, w.b.cfg.PostInterval-time.Since(last))
	}
}

// classify decides what to do after a task ran: done (removed from the
// outbox by do), retry after Slack's Retry-After, retry with backoff, or
// give up on an error no retry can fix.
func (w *workers) classify(t hitl.SlackTask, err error) (wait time.Duration, retry bool) {
	if err == nil {
		return 0, false
	}
	var rl *slack.RateLimitedError
	if errors.As(err, &rl) {
		w.b.log.Warn("slack rate limited; retrying after Retry-After", "task", t.Seq, "target", t.Target, "retry_after", rl.RetryAfter)
		if rl.RetryAfter <= 0 {
			return time.Second, true
		}
		return rl.RetryAfter, true
	}
	if transient(err) {
		w.b.log.Warn("slack unavailable; will retry", "task", t.Seq, "target", t.Target, "err", err)
		return 0, true
	}
	if errors.Is(err, context.Canceled) {
		return 0, true
	}
	w.b.log.Error("slack refused a message; dropping it (the question can still be answered with hitl answer)",
		"task", t.Seq, "kind", t.Kind, "question", t.QuestionID, "target", t.Target, "err", err, "hint", refusalHint(err))
	if cerr := w.b.outbox.CompleteSlackTask(context.Background(), t, nil); cerr != nil {
		w.b.log.Error("slack outbox: dropping task failed", "err", cerr)
		return 0, true
	}
	return 0, false
}

// transient reports errors a retry may fix: network errors, 5xx, and
// Slack's own "try again" answers.
func transient(err error) bool {
	var se slack.StatusCodeError
	if errors.As(err, &se) {
		return se.Code >= 500 || se.Code == 408 || se.Code == 429
	}
	var ue *url.Error
	var ne net.Error
	if errors.As(err, &ue) || errors.As(err, &ne) {
		return true
	}
	var sr slack.SlackErrorResponse
	if errors.As(err, &sr) {
		switch sr.Err {
		case "internal_error", "fatal_error", "service_unavailable", "request_timeout", "ratelimited", "team_added_to_org":
			return true
		}
		return false
	}
	if errors.Is(err, errStoreWrite) {
		return true
	}
	// Errors slack-go returns as plain strings for API errors.
	switch err.Error() {
	case "internal_error", "fatal_error", "service_unavailable", "request_timeout", "ratelimited":
		return true
	}
	return false
}

var errStoreWrite = errors.New("recording the Slack message failed")

// refusalHint tells the operator how to fix what Slack refused.
func refusalHint(err error) string {
	var sr slack.SlackErrorResponse
	if !errors.As(err, &sr) {
		return ""
	}
	switch sr.Err {
	case "not_in_channel":
		return "invite the bot to the channel: /invite @hitl"
	case "channel_not_found":
		return "check the channel id (HITL_SLACK_CHANNEL or the question's channel), and invite the bot if it is private"
	case "invalid_auth", "not_authed", "token_revoked", "account_inactive":
		return "check SLACK_BOT_TOKEN"
	case "missing_scope":
		return "reinstall the app from slack-app-manifest.yaml: a scope is missing"
	case "invalid_blocks", "msg_too_long":
		return "a bug in hitl's rendering: please report it with this log line"
	}
	return ""
}
