package slack

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	goslack "github.com/slack-go/slack"
)

// targetPage is how many targets with work the dispatcher reads at once.
const targetPage = 256

// workers run the outbox: one goroutine per target (channel or DM) that has
// deliveries, each doing its deliveries in order, paced per target, and
// retrying what Slack or the store refused for the moment. The store is
// read by index (the targets with work, a target's next delivery) and
// never under the workers' mutex, which guards only who runs.
type workers struct {
	b    *Bot
	pace *pacer
	wake chan struct{}

	mu      sync.Mutex
	running map[string]bool
	again   map[string]bool // work was enqueued for a running target since it last looked
	wg      sync.WaitGroup
}

func newWorkers(b *Bot) *workers {
	return &workers{b: b, pace: newPacer(b.cfg.PostInterval), wake: make(chan struct{}, 1),
		running: map[string]bool{}, again: map[string]bool{}}
}

// kick tells the dispatcher that deliveries were enqueued.
func (w *workers) kick() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run starts a worker for every target with work, now and at every kick.
func (w *workers) run(ctx context.Context) {
	defer w.wg.Wait()
	w.kick() // work left from before a restart
	var tick <-chan time.Time
	if d := w.b.cfg.Redispatch; d > 0 {
		t := time.NewTicker(d)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-tick:
		}
		if err := w.dispatch(ctx); err != nil && ctx.Err() == nil {
			w.b.log.Error("slack outbox: reading targets failed", "err", err)
			if !sleep(ctx, w.b.retry.failed()) {
				return
			}
			w.kick()
		}
	}
}

// dispatch starts (or nudges) the worker of each target with work.
func (w *workers) dispatch(ctx context.Context) error {
	after := ""
	for {
		targets, err := w.b.outbox.Targets(ctx, after, targetPage)
		if err != nil {
			return err
		}
		for _, t := range targets {
			w.start(ctx, t)
		}
		if len(targets) < targetPage {
			return nil
		}
		after = targets[len(targets)-1]
	}
}

func (w *workers) start(ctx context.Context, target string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running[target] {
		w.again[target] = true
		return
	}
	w.running[target] = true
	w.wg.Add(1)
	go w.drain(ctx, target)
}

// drain does target's deliveries until none is left.
func (w *workers) drain(ctx context.Context, target string) {
	defer w.wg.Done()
	for ctx.Err() == nil {
		w.mu.Lock()
		delete(w.again, target)
		w.mu.Unlock()
		d, err := w.b.outbox.NextDelivery(ctx, target)
		switch fault.Code(err) {
		case "":
		case fault.ENOTFOUND:
			if w.retire(target) {
				return
			}
			continue
		default:
			w.b.log.Error("slack outbox: reading the next delivery failed", "target", target, "err", err)
			if !sleep(ctx, w.b.retry.failed()) {
				return
			}
			continue
		}
		if !sleep(ctx, w.pace.delay(target)) || !w.b.retry.wait(ctx) {
			return
		}
		err = w.b.do(w.b.calls, d)
		w.pace.took(target)
		if wait, ok := w.settle(d, err); !ok || !sleep(ctx, wait) {
			return
		}
	}
}

// retire ends target's worker, unless work was enqueued for it meanwhile.
func (w *workers) retire(target string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.again[target] {
		delete(w.again, target)
		return false
	}
	delete(w.running, target)
	w.pace.forget(target)
	return true
}

// busy reports whether any target has work in flight.
func (w *workers) busy() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.running) > 0
}

// settle decides what follows a delivery that ran with err: the next one
// at once (done, or dropped because no retry can fix it), or this one again
// after Slack's Retry-After for this target, or after the shared backoff.
// ok is false when the bot is stopping.
func (w *workers) settle(d hitl.Delivery, err error) (wait time.Duration, ok bool) {
	log := w.b.log.With("delivery", d.Seq, "kind", d.Kind, "question", d.QuestionID, "target", d.Target)
	var rl *goslack.RateLimitedError
	switch {
	case err == nil:
		w.b.retry.succeeded()
		return 0, true
	case errors.As(err, &rl):
		log.Warn("slack rate limited; retrying after Retry-After", "retry_after", rl.RetryAfter)
		if rl.RetryAfter <= 0 {
			return time.Second, true
		}
		return rl.RetryAfter, true
	case errors.Is(err, context.Canceled), errors.Is(err, errStopping):
		return 0, false
	case transient(err):
		log.Warn("slack unavailable; will retry", "err", err)
		return w.b.retry.failed(), true
	}
	log.Error("slack refused a message; dropping it (the question can still be answered with hitl answer)",
		"err", err, "hint", refusalHint(err))
	if err := w.b.record(w.b.calls, d, nil); err != nil {
		return 0, false
	}
	return 0, true
}
