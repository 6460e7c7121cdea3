package watch

import (
	"context"
	"errors"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// asking is the question asked for one request: its goroutine creates it
// (or finds it again by its key), waits for it to be settled and takes its
// outcome, then reports on the watcher's results.
type asking struct {
	key    string
	cancel context.CancelCauseFunc
}

// withdrawn is the cause of an asking's end when its request is gone or
// replaced: the question is cancelled with reason.
type withdrawn struct{ reason string }

func (w *withdrawn) Error() string { return "withdrawn: " + w.reason }

// result is what an asking ended with.
type result struct {
	d   *dir
	key string
	q   *hitl.Question // settled and received when answered
	err error          // the question could not be asked or waited on
}

// ask asks n in d's run and reports the outcome on d.results, unless ctx
// ends first: then, withdrawn, it cancels the question; otherwise (the
// watcher stops) it leaves the question pending for the next watcher.
func (w *Watcher) ask(ctx context.Context, d *dir, n hitl.NewQuestion) {
	report := func(q *hitl.Question, err error) {
		select {
		case d.results <- result{d: d, key: n.IdempotencyKey, q: q, err: err}:
		case <-ctx.Done():
		}
	}
	q, err := w.create(ctx, d, n)
	if err != nil {
		if ctx.Err() == nil {
			report(nil, err)
		}
		return
	}
	if ctx.Err() != nil {
		w.withdraw(ctx, q)
		return
	}
	w.logf("%s: asked %s in run %s", d.request(), q.ID, d.run)
	for {
		if q.Pending() {
			got, err := w.cfg.Client.Wait(ctx, q.ID)
			switch {
			case ctx.Err() != nil:
				w.withdraw(ctx, q)
				return
			case err != nil:
				report(q, err)
				return
			}
			q = got
		}
		if q.Status != hitl.StatusAnswered {
			// Timed out or cancelled by a person: reported as it is and
			// not received, so that the same request, seen again after a
			// restart, finds this question rather than asking anew.
			report(q, nil)
			return
		}
		got, err := retry(ctx, w.backoff(), func(ctx context.Context) (*hitl.Question, error) {
			return w.cfg.Client.Receive(ctx, q.ID)
		})
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			report(q, err)
			return
		case got.Pending():
			q = got // the service lost a sensitive answer and asks again
			continue
		}
		report(got, nil)
		return
	}
}

// create asks n in d's run, trying again while the service cannot be
// reached, until it is asked, refused, or ctx ends. Each attempt finishes
// even when ctx ends meanwhile, so that a question asked just before its
// request went away is known and cancelled.
func (w *Watcher) create(ctx context.Context, d *dir, n hitl.NewQuestion) (*hitl.Question, error) {
	b := w.backoff()
	for {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), requestTimeout)
		q, _, err := w.cfg.Client.Create(cctx, d.run, n)
		cancel()
		if err == nil || !retryable(err) || ctx.Err() != nil {
			return q, err
		}
		if serr := sleep(ctx, b.delay(err)); serr != nil {
			return nil, err
		}
	}
}

// withdraw cancels q when ctx ended because its request was withdrawn.
func (w *Watcher) withdraw(ctx context.Context, q *hitl.Question) {
	var wd *withdrawn
	if !errors.As(context.Cause(ctx), &wd) {
		return // the watcher stops: the question waits for the next one
	}
	// Tried until it is done or the watcher stops (the next watcher's
	// sweep cancels it then).
	_, err := retry(w.ctx, w.backoff(), func(ctx context.Context) (*hitl.Question, error) {
		return w.cfg.Client.Cancel(ctx, q.ID, wd.reason)
	})
	switch {
	case err == nil:
		w.logf("cancelled %s: %s", q.ID, wd.reason)
	case fault.Code(err) == fault.ECONFLICT:
		// Settled meanwhile: nothing left to cancel.
	default:
		w.logf("could not cancel %s (%s): %s", q.ID, wd.reason, fault.Message(err))
	}
}

// requestTimeout bounds one attempt to create, which must finish after its
// context ended.
const requestTimeout = 30 * time.Second

// retry calls f until it succeeds, fails for a reason other than the
// service being unreachable or failing, or ctx ends.
func retry(ctx context.Context, b *backoff, f func(context.Context) (*hitl.Question, error)) (*hitl.Question, error) {
	for {
		q, err := f(ctx)
		if err == nil || !retryable(err) {
			return q, err
		}
		if cerr := sleep(ctx, b.delay(err)); cerr != nil {
			return q, err
		}
	}
}

// retryable reports errors worth retrying: the service is unreachable,
// shutting down, failing or rate limiting.
func retryable(err error) bool {
	switch fault.Code(err) {
	case fault.EUNAVAILABLE, fault.EINTERNAL, fault.ERATELIMITED:
		return true
	}
	return false
}

// backoff is capped exponential backoff.
type backoff struct {
	cur, max time.Duration
}

func (w *Watcher) backoff() *backoff {
	return &backoff{cur: 100 * time.Millisecond, max: 5 * time.Second}
}

// next is the next delay: twice the last, up to max.
func (b *backoff) next() time.Duration {
	d := b.cur
	b.cur = min(2*b.cur, b.max)
	return d
}

// delay is how long to wait before trying again after err: the next
// delay, or the Retry-After err says when longer.
func (b *backoff) delay(err error) time.Duration {
	d := b.next()
	var he *fault.Error
	if errors.As(err, &he) && he.RetryAfter > d {
		d = he.RetryAfter
	}
	return d
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
