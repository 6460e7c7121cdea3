package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/hook"
)

// cmdGate checks the policy for a command, asks when it says so, then
// runs the command (an edited one instead, shown on stderr first) with its
// exit code becoming gate's, or exits 3 (denied) or 4 (timed out) without
// running it. Ctrl+C while it waits cancels the approval and exits 130.
func cmdGate(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	opType := fs.String("op-type", "shell", "the operation type")
	risk := fs.String("risk", "", "low, medium, high or critical")
	reason := fs.String("reason", "", "why the agent wants to run it, shown to people")
	timeout := fs.Duration("timeout", 0, "how long to wait for a person (default: the approval timeout, 15m)")
	run := fs.String("run", e.getenv("HITL_RUN"), "the run the approval belongs to (HITL_RUN)")
	var command []string
	for i, a := range args {
		if a == "--" {
			args, command = args[:i], args[i+1:]
			break
		}
	}
	if extra, err := parseArgs(fs, args); err != nil {
		return err
	} else if len(extra) > 0 || len(command) == 0 {
		return usageError(fs, `hitl gate needs the command after --: hitl gate --reason "clean the build" -- rm -rf build`)
	}
	shown := shellJoin(command)
	desc := *reason
	if desc == "" {
		desc = "Run " + shown
	}
	req := hitl.ApprovalRequest{RunID: *run, Operation: hook.AgentSide(hitl.Operation{Type: hitl.OpType(*opType), Description: desc,
		Resource: shown, Risk: hitl.Risk(*risk), Context: *reason}, e.getenv("HOME"), workingDir())}
	if *timeout > 0 {
		m := timeout.Minutes()
		req.TimeoutMinutes = &m
	}
	c := newClient(e)
	res, err := c.Gate(ctx, req, client.Progress{Asked: func(id string) {
		fmt.Fprintf(e.stderr, "hitl gate: waiting for approval %s to run %s (%s)\n", visible(id), visible(shown), approvalWhere(ctx, c, id))
	}})
	if ctx.Err() != nil {
		return abandonGate(ctx, c, res.QuestionID, shown)
	}
	if err != nil {
		return err
	}
	switch {
	case res.Outcome == hitl.OutcomeCancelled:
		return &outcome{code: exitCancelled, msg: fmt.Sprintf("hitl gate: the approval %s was cancelled: %s; not running %s",
			visible(res.QuestionID), visible(res.Message), visible(shown))}
	case res.TimedOut && !res.Allowed:
		return &outcome{code: exitTimedOut, msg: fmt.Sprintf("hitl gate: nobody approved %s in time; not running it", visible(shown))}
	case res.Outcome == hitl.OutcomeReplied:
		return &outcome{code: exitDenied, msg: fmt.Sprintf("hitl gate: not running %s: %s replied instead of approving: %s",
			visible(shown), visible(res.By), visible(res.Message))}
	case !res.Allowed:
		msg := "hitl gate: denied"
		if res.By != "" {
			msg += " by " + visible(res.By)
		}
		if res.Message != "" {
			msg += ": " + visible(res.Message)
		}
		return &outcome{code: exitDenied, msg: msg}
	}
	argv := command
	if res.Edited != "" && res.Edited != shown {
		fmt.Fprintf(e.stderr, "hitl gate: %s edited the command; running instead:\n  %s\n", visible(res.By), visible(res.Edited))
		argv = []string{"sh", "-c", res.Edited}
	} else {
		res.Edited = ""
	}
	// With enforce: kernel, the command runs under its grant (enforce.go).
	grant, err := runGrant(ctx, c, res, req.Operation)
	if err == nil && grant != nil {
		dir, _ := os.Getwd()
		argv, err = sandboxArgv(e, grant, dir, argv)
		if err == nil {
			fmt.Fprintf(e.stderr, "hitl gate: running it under its grant: %s\n", visible(grant.Text()))
		}
	}
	if err != nil {
		return &outcome{code: exitRefused, msg: fmt.Sprintf("hitl gate: %s; not running %s", visible(fault.Message(err)), visible(shown))}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	if exitErr, ok := err.(*exec.ExitError); ok {
		return &outcome{code: exitErr.ExitCode()}
	}
	if err != nil {
		return fault.Errorf(fault.EINVALID, "cannot run %s: %v", command[0], err)
	}
	return nil
}

// shellJoin quotes args as a person would type them in sh.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`;&|<>()*?[]#~!{}") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// approvalWhere says where a person approves question id.
func approvalWhere(ctx context.Context, c *client.Client, id string) string {
	how := hint("answer "+visible(id)) + " approve (or deny, or --reply TEXT)"
	if h, err := c.Health(ctx); err == nil && h.Slack {
		return "approve it in Slack, or with: " + how
	}
	return "approve it with: " + how
}

// abandonGate is Ctrl+C on hitl gate: the command will not run, so its
// approval is cancelled (a person who approves it later is told it was
// cancelled, not led to think the command ran) and gate exits 130.
func abandonGate(ctx context.Context, c *client.Client, id, shown string) error {
	if id == "" {
		return &outcome{code: exitInterrupted, msg: fmt.Sprintf("hitl gate: interrupted; %s was not run", visible(shown))}
	}
	cctx, cancel := client.Asking(ctx)
	defer cancel()
	q, err := c.Cancel(cctx, id, "hitl gate was interrupted (Ctrl+C): "+shown+" was not run")
	var msg string
	switch {
	case err == nil:
		msg = fmt.Sprintf("hitl gate: interrupted; approval %s is cancelled and %s was not run", visible(q.ID), visible(shown))
	case fault.Code(err) == fault.ECONFLICT:
		msg = fmt.Sprintf("hitl gate: interrupted; %s was not run, though approval %s was settled meanwhile: %s",
			visible(shown), visible(id), visible(fault.Message(err)))
	default:
		msg = fmt.Sprintf("hitl gate: interrupted; %s was not run, and approval %s could not be cancelled (%s): %s",
			visible(shown), visible(id), visible(fault.Message(err)), hint("cancel "+visible(id)))
	}
	return &outcome{code: exitInterrupted, msg: msg}
}

// workingDir is where the command will run: relative paths are placed in it.
func workingDir() string {
	d, _ := os.Getwd()
	return d
}
