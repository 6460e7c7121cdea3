package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// heartbeat is how often hitl run reports that its command still runs.
const heartbeat = 30 * time.Second

// cmdRun supervises a command that was never written for hitl (steering
// must not require changing the agent; docs/protocol.md#steering): it starts the command in
// its own process group, reports STATE while it runs and DONE (exit 0) or
// ABORT (non-zero) when it ends, and applies interventions to the group:
// pause → SIGSTOP, resume → SIGCONT, cancel → SIGTERM, then SIGKILL after
// --grace. It exits with the command's code, or 5 when the run was
// cancelled.
func cmdRun(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f loopFlags
	f.register(fs, e)
	grace := fs.Duration("grace", 10*time.Second, "how long a cancelled command has between SIGTERM and SIGKILL")
	var pos []string
	for i, a := range args {
		if a == "--" {
			args, pos = args[:i], args[i+1:]
			break
		}
	}
	if extra, err := parseArgs(fs, args); err != nil {
		return err
	} else if len(extra) > 0 {
		return usageError(fs, fmt.Sprintf("put the command after --: hitl run --run %s -- %s", f.run, strings.Join(extra, " ")))
	}
	if f.run == "" || len(pos) == 0 {
		return usageError(fs, "hitl run needs --run (or HITL_RUN) and a command after --: hitl run --run loop-1 -- claude -p \"fix the tests\"")
	}
	c := newClient(e)
	cp, err := startable(ctx, c, e, &f)
	if err != nil {
		return err
	}
	cmd := exec.Command(pos[0], pos[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_, _ = c.Publish(context.WithoutCancel(ctx), steer.StateEvent{Event: steer.StateAbort, RunID: f.run, Reason: "could not start: " + err.Error()})
		return fault.Errorf(fault.EINVALID, "cannot start %s: %v", pos[0], err)
	}
	pgid := cmd.Process.Pid
	fmt.Fprintf(e.stderr, "hitl: started %s (pid %d) as run %s\n", visible(pos[0]), pgid, visible(f.run))
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	statuses := make(chan steer.RunStatus, 1)
	go watchRun(wctx, c, e, f.run, cp.Version, statuses)
	beat := e.ticker(heartbeat)

	var stopped, cancelled bool
	var kill <-chan time.Time
	signal := func(sig syscall.Signal, what string) {
		if err := syscall.Kill(-pgid, sig); err == nil {
			fmt.Fprintf(e.stderr, "hitl: run %s %s: process group %d got %s\n", visible(f.run), what, pgid, sig)
		}
	}
	terminate := func(what string) {
		if stopped {
			signal(syscall.SIGCONT, "resumed to stop")
			stopped = false
		}
		signal(syscall.SIGTERM, what)
		kill = e.afterFunc()(*grace)
	}
	for {
		select {
		case st := <-statuses:
			switch {
			case st == steer.RunPaused && !stopped && !cancelled:
				signal(syscall.SIGSTOP, "paused")
				stopped = true
			case st == steer.RunRunning && stopped:
				signal(syscall.SIGCONT, "resumed")
				stopped = false
			case st.Ended() && !cancelled:
				cancelled = true
				terminate(string(st))
			}
		case <-kill:
			signal(syscall.SIGKILL, "did not stop within the grace period")
		case <-beat:
			_, _ = c.Publish(ctx, steer.StateEvent{Event: steer.StateRunning, RunID: f.run,
				Stack: []steer.StackEntry{{ID: f.run, Mode: f.mode, Iter: f.iter, Max: f.max, Model: f.model}}})
		case <-ctx.Done():
			if !cancelled {
				cancelled = true
				terminate("interrupted")
			}
			ctx = context.WithoutCancel(ctx)
		case err := <-exited:
			stopWatch()
			return finishRun(context.WithoutCancel(ctx), c, e, f.run, err, cancelled)
		}
	}
}

// startable registers the run and waits while it is paused; a run that
// is already over is not started.
func startable(ctx context.Context, c *client.Client, e *env, f *loopFlags) (hitl.Checkpoint, error) {
	cp, err := reportWaiting(ctx, c, e, f, "hitl: run %s is paused; the command starts once it is resumed (hitl resume %s)\n")
	if err != nil {
		return cp, err
	}
	if cp.Status.Ended() {
		return cp, &outcome{code: exitCancelled, msg: fmt.Sprintf("hitl: run %s is %s; not starting the command", visible(f.run), cp.Status)}
	}
	if cp.Model != "" {
		f.model = cp.Model
	}
	return cp, nil
}

// watchRun sends the run's status each time its record changes.
func watchRun(ctx context.Context, c *client.Client, e *env, run string, seen uint64, out chan steer.RunStatus) {
	for ctx.Err() == nil {
		r, err := c.WaitRun(ctx, run, seen)
		if err != nil {
			if ctx.Err() == nil {
				_ = e.wait(ctx, time.Second)
			}
			continue
		}
		seen = r.Version
		select {
		case <-out: // keep only the latest
		default:
		}
		out <- r.Control.Status
	}
}

// finishRun reports how the command ended and returns hitl run's exit.
func finishRun(ctx context.Context, c *client.Client, e *env, run string, waitErr error, cancelled bool) error {
	code := 0
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &exitErr):
		code = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	default:
		code = exitFailure
	}
	if cancelled {
		_, _ = c.Publish(ctx, steer.StateEvent{Event: steer.StateAbort, RunID: run, Reason: fmt.Sprintf("stopped (exit code %d)", code)})
		return &outcome{code: exitCancelled, msg: fmt.Sprintf("hitl: run %s was cancelled; the command ended with exit code %d", visible(run), code)}
	}
	if code == 0 {
		_, err := c.Publish(ctx, steer.StateEvent{Event: steer.StateDone, RunID: run})
		if err != nil {
			fmt.Fprintf(e.stderr, "hitl: run %s finished, but reporting DONE failed: %s\n", visible(run), visible(fault.Message(err)))
		}
		return nil
	}
	_, _ = c.Publish(ctx, steer.StateEvent{Event: steer.StateAbort, RunID: run, Reason: fmt.Sprintf("exit code %d", code)})
	return &outcome{code: code, msg: fmt.Sprintf("hitl: run %s: the command ended with exit code %d", visible(run), code)}
}
