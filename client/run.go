package client

import (
	"context"
	"sync"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// Run registers run runID as a steerable loop (its first STATE, iteration
// 0) and returns its handle. The handle watches the run: Context() ends
// the moment a person cancels it. Call Checkpoint at every iteration
// boundary and Done or Abort at the end.
func (c *Client) Run(ctx context.Context, runID string, opts RunOptions) (*Run, error) {
	if err := steer.ValidateRunID(runID); err != nil {
		return nil, err
	}
	if opts.Threshold != nil {
		if err := hitl.ValidateThreshold("interaction threshold", *opts.Threshold); err != nil {
			return nil, err
		}
	}
	l := &Run{c: c, id: runID, opts: opts, model: opts.Model, done: make(chan struct{})}
	cp, err := c.checkpointOnce(ctx, runID, l.request(0))
	if err != nil {
		return nil, err
	}
	if cp.Model != "" {
		l.model = cp.Model
	}
	l.ctx, l.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	var watch context.Context
	watch, l.stop = context.WithCancel(l.ctx)
	go l.watch(watch)
	if cp.Status.Ended() {
		l.cancel(cancelledError(runID, cp))
	}
	return l, nil
}

// checkpointOnce reports without waiting on a pause (registration).
func (c *Client) checkpointOnce(ctx context.Context, run string, req wire.CheckpointRequest) (hitl.Checkpoint, error) {
	seg, err := segment("run id", run)
	if err != nil {
		return hitl.Checkpoint{}, err
	}
	var cp hitl.Checkpoint
	err = c.do(ctx, "POST", "/api/runs/"+seg+"/checkpoint", nil, req, &cp)
	return cp, err
}

// RunOptions describe a steerable loop to the people who watch it.
type RunOptions struct {
	IssueID string
	Mode    string // "issue", "grind", …
	Max     int    // iterations planned (0: unknown)
	Model   string // the model the loop starts with
	// Threshold is the run's own interaction threshold (docs/protocol.md#run-state-and-the-interaction-threshold), 0–5.
	Threshold *int
}

// Step is what a loop learns at an iteration boundary.
type Step struct {
	// Model is the model to use from now on. NewModel is set at the first
	// checkpoint after an escalation, once.
	Model    string
	NewModel string
	// Instruction is a redirect from a person, handed over once.
	Instruction string
}

// Run is the agent side of a steerable run (docs/protocol.md#steering): it reports its
// state to hitl and honours pause, resume, cancel, escalate and redirect.
// Create it with Client.Run; it is safe for concurrent use.
type Run struct {
	c    *Client
	id   string
	opts RunOptions

	mu    sync.Mutex
	model string
	iter  int

	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   context.CancelFunc
	done   chan struct{}
}

func (l *Run) request(iter int) wire.CheckpointRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	if iter > 0 {
		l.iter = iter
	}
	return wire.CheckpointRequest{IssueID: l.opts.IssueID, Mode: l.opts.Mode, Iter: l.iter, Max: l.opts.Max, Model: l.model, Threshold: l.opts.Threshold}
}

// ID is the run's id.
func (l *Run) ID() string { return l.id }

// Model is the model the loop should use now.
func (l *Run) Model() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.model
}

// Context is cancelled the moment the run is cancelled (a Stop, docs/protocol.md#steering),
// so a long model call stops at once; its cause is the cancellation
// error. It also ends after Done or Abort.
func (l *Run) Context() context.Context { return l.ctx }

// Checkpoint reports iteration iter and returns what to do: at once while
// the run is running (with a new model or instruction, once); it blocks
// while the run is paused; after a cancel it returns a *fault.Error with
// code fault.ECANCELLED. An unreachable service is retried until ctx ends,
// and a rate-limited report after its Retry-After.
func (l *Run) Checkpoint(ctx context.Context, iter int) (Step, error) {
	req := l.request(iter)
	b := backoff{min: l.c.minBackoff, max: l.c.maxBackoff}
	for {
		req.Model = l.Model()
		cp, err := l.c.checkpoint(ctx, l.id, req)
		switch {
		case ctx.Err() != nil:
			return Step{}, ctx.Err()
		case err != nil && retryable(err):
			if err := b.sleep(ctx); err != nil {
				return Step{}, err
			}
			continue
		case fault.Code(err) == fault.ERATELIMITED, fault.Code(err) == fault.ETOOMANYSTREAMS:
			// Over this principal's run-report limit or stream bound:
			// wait as told, then report again.
			if err := sleepRetryAfter(ctx, err, b.next()); err != nil {
				return Step{}, err
			}
			continue
		case err != nil:
			return Step{}, err
		}
		b.reset()
		switch {
		case cp.Status.Ended():
			err := cancelledError(l.id, cp)
			l.cancel(err)
			return Step{}, err
		case cp.Status == steer.RunPaused:
			continue // the server held the call; still paused: ask again
		}
		l.mu.Lock()
		if cp.NewModel != "" {
			l.model = cp.NewModel
		} else if cp.Model != "" {
			l.model = cp.Model
		}
		step := Step{Model: l.model, NewModel: cp.NewModel, Instruction: cp.Instruction}
		l.mu.Unlock()
		return step, nil
	}
}

// Done reports that the loop finished (DONE on loop:current): its pending
// questions are cancelled, and steering it is over.
func (l *Run) Done(ctx context.Context) error {
	return l.end(ctx, steer.StateEvent{Event: steer.StateDone, RunID: l.id})
}

// Abort reports that the loop gave up (ABORT with reason).
func (l *Run) Abort(ctx context.Context, reason string) error {
	return l.end(ctx, steer.StateEvent{Event: steer.StateAbort, RunID: l.id, Reason: reason})
}

func (l *Run) end(ctx context.Context, e steer.StateEvent) error {
	defer l.Close()
	_, err := l.c.Publish(ctx, e)
	return err
}

// Close stops watching the run (Done and Abort call it).
func (l *Run) Close() {
	l.stop()
	<-l.done
	l.cancel(context.Canceled)
}

// watch long-polls the run and cancels Context the moment it is
// cancelled or ended elsewhere.
func (l *Run) watch(ctx context.Context) {
	defer close(l.done)
	seen := uint64(0)
	b := backoff{min: l.c.minBackoff, max: l.c.maxBackoff}
	for ctx.Err() == nil {
		run, err := l.c.WaitRun(ctx, l.id, seen)
		if err != nil {
			_ = b.sleep(ctx) // unreachable or refused: keep watching, gently
			continue
		}
		b.reset()
		seen = run.Version
		if run.Control.Status.Ended() {
			l.cancel(cancelledError(l.id, hitl.Checkpoint{Status: run.Control.Status, Reason: run.Control.Reason}))
			return
		}
	}
}

// cancelledError is what a loop gets once its run is over.
func cancelledError(id string, cp hitl.Checkpoint) *fault.Error {
	msg := "run " + id + " was cancelled"
	if cp.Status != steer.RunCancelled {
		msg = "run " + id + " has ended (" + string(cp.Status) + ")"
	}
	if cp.Reason != "" {
		msg += ": " + cp.Reason
	}
	return &fault.Error{Code: fault.ECANCELLED, Message: msg}
}
