// Package sweeper runs the timeout sweep on a robfig/cron schedule. The
// sweep itself (service.Questions.SweepExpired and Prune, service.Policies.PruneLearnedRules …) is the
// lifecycle's; this package only decides when it runs (Work puts the three
// together).
package sweeper

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
)

// SweepFunc times out what is due and reports how many it settled.
type SweepFunc func(ctx context.Context) (int, error)

// Lifecycle is what a sweep runs, part by part: the lifecycle decides
// what is due; the sweeper only calls it on a schedule.
type Lifecycle struct {
	Questions interface {
		SweepExpired(ctx context.Context) (int, error)
		SweepReminders(ctx context.Context) (int, error)
		Prune(ctx context.Context, retention time.Duration) (int, error)
	}
	Runs interface {
		SweepSessions(ctx context.Context) (int, error)
	}
	Policies interface {
		PruneLearnedRules(ctx context.Context, limit int) (int, error)
	}
	Guard interface {
		FlushRefusals(ctx context.Context) error
	}
}

// learnedBatch is how many expired learned rules one transaction deletes.
const learnedBatch = 256

// Work is the sweeper's work on svc: time out what is due, send the
// reminders and escalations due (after the timeouts: a question that
// timed out is reminded of nothing), show silent sessions idle and end
// the long silent ones, apply
// retention (0 keeps every question and event; refusals a flood left
// uncounted are written first), then delete the learned
// rules that expired (they decide nothing any more, whatever the
// retention). It reports how many records it settled or deleted. With
// nothing due it only reads: an idle service writes nothing.
func Work(svc Lifecycle, retention time.Duration) SweepFunc {
	return func(ctx context.Context) (int, error) {
		n, err := svc.Questions.SweepExpired(ctx)
		if err != nil {
			return n, err
		}
		reminded, err := svc.Questions.SweepReminders(ctx)
		n += reminded
		if err != nil {
			return n, err
		}
		// Silent coding-agent sessions are shown idle, then ended.
		quiet, err := svc.Runs.SweepSessions(ctx)
		n += quiet
		if err != nil {
			return n, err
		}
		// A flood that stopped has its refusals counted in one event.
		if err := svc.Guard.FlushRefusals(ctx); err != nil {
			return n, err
		}
		pruned, err := svc.Questions.Prune(ctx, retention)
		n += pruned
		if err != nil {
			return n, err
		}
		learned, err := PruneLearned(ctx, svc.Policies)
		return n + learned, err
	}
}

// PruneLearned deletes expired learned rules a batch (one transaction) at
// a time until a batch comes back short, and returns how many it deleted.
func PruneLearned(ctx context.Context, svc interface {
	PruneLearnedRules(ctx context.Context, limit int) (int, error)
}) (int, error) {
	total := 0
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n, err := svc.PruneLearnedRules(ctx, learnedBatch)
		total += n
		if err != nil || n < learnedBatch {
			return total, err
		}
	}
}

// Sweeper calls a SweepFunc on a schedule, never two at once.
type Sweeper struct {
	cron   *cron.Cron
	sweep  SweepFunc
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex     // held by the running sweep: never two at once
	first  sync.WaitGroup // the first sweep, run in the background
}

// Start sweeps once at once, in the background (questions may have come
// due while the service was down: thousands of them must not keep the
// service from starting), then on schedule (a cron spec such as
// "@every 1s").
func Start(schedule string, sweep SweepFunc, log *slog.Logger) (*Sweeper, error) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Sweeper{sweep: sweep, log: log, ctx: ctx, cancel: cancel}
	s.cron = cron.New(cron.WithChain(cron.SkipIfStillRunning(cron.DiscardLogger)))
	if _, err := s.cron.AddFunc(schedule, s.run); err != nil {
		cancel()
		return nil, err
	}
	s.first.Go(s.run)
	s.cron.Start()
	return s, nil
}

func (s *Sweeper) run() {
	if !s.mu.TryLock() {
		return // the previous sweep is still running
	}
	defer s.mu.Unlock()
	n, err := s.sweep(s.ctx)
	if err != nil && s.ctx.Err() == nil {
		s.log.Error("timeout sweep failed", "err", err)
	}
	if n > 0 {
		s.log.Info("sweep settled or pruned questions", "count", n)
	}
}

// Stop stops the schedule and waits for a running sweep to finish.
func (s *Sweeper) Stop() {
	s.cancel()
	<-s.cron.Stop().Done()
	s.first.Wait()
}
