package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// loopFlags are what a loop reports about itself.
type loopFlags struct {
	run, model, issue, mode string
	iter, max, threshold    int
}

func (f *loopFlags) register(fs *flag.FlagSet, e *env) {
	fs.StringVar(&f.run, "run", e.getenv("HITL_RUN"), "the run (loop) id (HITL_RUN)")
	fs.IntVar(&f.iter, "iter", 0, "the iteration the loop is at")
	fs.IntVar(&f.max, "max", 0, "the iterations planned")
	fs.StringVar(&f.model, "model", "", "the model the loop uses")
	fs.StringVar(&f.issue, "issue", "", "the issue the loop works on")
	fs.StringVar(&f.mode, "mode", "", "the loop's mode (issue, grind, …)")
	fs.IntVar(&f.threshold, "threshold", -1, "the run's interaction threshold, 0-5")
}

func (f *loopFlags) request() wire.CheckpointRequest {
	req := wire.CheckpointRequest{IssueID: f.issue, Mode: f.mode, Iter: f.iter, Max: f.max, Model: f.model}
	if f.threshold >= 0 {
		t := f.threshold
		req.Threshold = &t
	}
	return req
}

// reportWaiting reports the loop's state and waits while its run is
// paused (saying so once, with pausedMsg), until it is not. Once the
// service was reached, a restart of it (unreachable, failing) is waited
// out, retrying every second, as hitl ask waits out one; a service that
// cannot be reached at all is an error at once.
func reportWaiting(ctx context.Context, c *client.Client, e *env, f *loopFlags, pausedMsg string) (hitl.Checkpoint, error) {
	if _, err := c.Health(ctx); err != nil {
		return hitl.Checkpoint{}, err
	}
	said := false
	for {
		cp, err := c.Report(ctx, f.run, f.request())
		if err != nil {
			if ctx.Err() != nil || !retryable(err) {
				return cp, err
			}
			if err := e.wait(ctx, time.Second); err != nil {
				return cp, err
			}
			continue
		}
		if cp.Status != steer.RunPaused {
			return cp, nil
		}
		if !said {
			fmt.Fprintf(e.stderr, pausedMsg, visible(f.run), visible(f.run))
			said = true
		}
	}
}

// retryable reports the errors a waiting command outlives: the service
// is unreachable (restarting) or failing.
func retryable(err error) bool {
	switch fault.Code(err) {
	case fault.EUNAVAILABLE, fault.EINTERNAL:
		return true
	}
	return false
}

func endRun(ctx context.Context, args []string, e *env, name string, ev steer.StateEventType) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	run := fs.String("run", e.getenv("HITL_RUN"), "the run (loop) id (HITL_RUN)")
	reason := new(string)
	if ev == steer.StateAbort {
		reason = fs.String("reason", "", "why the loop gave up")
	}
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	if *run == "" {
		return usageError(fs, "hitl "+name+" needs --run (or HITL_RUN)")
	}
	if ev == steer.StateAbort && *reason == "" {
		return usageError(fs, `hitl abort needs --reason: hitl abort --run loop-1 --reason "tests keep failing"`)
	}
	cp, err := newClient(e).Publish(ctx, steer.StateEvent{Event: ev, RunID: *run, Reason: *reason})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Run %s: %s\n", visible(*run), cp.Status)
	return nil
}
