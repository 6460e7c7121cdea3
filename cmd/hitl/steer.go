package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/runhandle"
	"github.com/hitlbot/hitl/steer"
)

// questionIDPattern tells a question id (q_ and 16 base32 characters)
// from a run id, for hitl cancel.
var questionIDPattern = regexp.MustCompile(`^q_[0-9a-z]{16}$`)

// cmdSteer returns the controller verb for command: hitl pause|resume RUN.
func cmdSteer(c steer.Command) func(context.Context, []string, *env) error {
	return func(ctx context.Context, args []string, e *env) error {
		fs := flag.NewFlagSet(string(c), flag.ContinueOnError)
		pos, err := parseArgs(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return usageError(fs, fmt.Sprintf("hitl %s needs one run (its id, or the handle hitl runs shows): hitl %s loop-1703123456-12345", c, c))
		}
		return sendSteer(ctx, e, c, pos[0], steer.ControlPayload{})
	}
}

func cmdEscalate(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("escalate", flag.ContinueOnError)
	model := fs.String("model", "", "the model to switch to, like opus (required)")
	reason := fs.String("reason", "", "why, shown to the agent and to people")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || strings.TrimSpace(*model) == "" {
		return usageError(fs, `hitl escalate needs a run and a model: hitl escalate loop-1 --model opus --reason "stuck on type inference"`)
	}
	return sendSteer(ctx, e, steer.CommandEscalate, pos[0], steer.ControlPayload{Model: *model, Reason: *reason})
}

func cmdRedirect(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("redirect", flag.ContinueOnError)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usageError(fs, `hitl redirect needs a run and an instruction: hitl redirect loop-1 "use the v2 API instead"`)
	}
	return sendSteer(ctx, e, steer.CommandRedirect, pos[0], steer.ControlPayload{Instruction: strings.Join(pos[1:], " ")})
}

// steer looks the run up (waiting out an outage of the service for up to
// agent.RequestExpiry, 30 s, as the request does), sends one REQUEST
// (retried with the same request_id until it is acknowledged, for up to
// 30 s) and prints its RESULT: one line, exit 0 on success; on failure the
// RESULT's code and message and the table's code.
func sendSteer(ctx context.Context, e *env, c steer.Command, name string, p steer.ControlPayload) error {
	cl := newClient(e)
	var run string
	err := cl.Retrying(ctx, time.Now().Add(client.RequestExpiry), func() (err error) {
		run, err = resolveRun(ctx, cl, name)
		return err
	})
	if err != nil {
		return err
	}
	msgs, err := cl.Control(ctx, steer.NewRequest(client.NewRequestID(), c, run, time.Now(), p))
	if err != nil {
		return err
	}
	if len(msgs) == 0 {
		return fault.Errorf(fault.EUNAVAILABLE, "the service answered without saying whether the request was carried out")
	}
	res := msgs[len(msgs)-1]
	if code, failed := res.Failed(); failed {
		return &outcome{code: resultCode(code), msg: fmt.Sprintf("hitl %s: %s: %s", c, code, visible(res.Payload.Message))}
	}
	if res.Type != steer.MessageResult {
		return &outcome{code: exitFailure, msg: fmt.Sprintf("hitl %s: request %s was received; it is not carried out yet", c, res.RequestID)}
	}
	line := fmt.Sprintf("%s %s: %s", c, visible(run), visible(res.Payload.Message))
	if res.Payload.NewModel != "" {
		line = fmt.Sprintf("%s %s: %s → %s", c, visible(run), visible(orNone(res.Payload.PreviousModel)), visible(res.Payload.NewModel))
	}
	fmt.Fprintln(e.stdout, line)
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// resolveRun returns the run name means (runhandle.Resolve: its id, or the
// handle hitl runs shows, or any unique prefix of a run's id, active or
// ended): not_found (exit 7) when no run is named so or starts so, invalid
// (exit 2) naming the candidates when several do. A principal that may
// not list runs (an ask-only token) names its runs in full: the name is
// then the service's to judge.
func resolveRun(ctx context.Context, c *client.Client, name string) (string, error) {
	id, err := runhandle.Resolve(ctx, c, name)
	if fault.Code(err) == fault.EFORBIDDEN {
		return name, nil
	}
	return id, err
}

func cmdRuns(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("runs", flag.ContinueOnError)
	all := fs.Bool("all", false, "finished runs too")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	c := newClient(e)
	var runs []*hitl.Run
	handles := map[string]string{}
	cursor := ""
	for {
		page, err := c.Runs(ctx, !*all, hitl.MaxPageSize, cursor)
		if err != nil {
			return err
		}
		runs = append(runs, page.Runs...)
		maps.Copy(handles, page.Handles)
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if *asJSON {
		if runs == nil {
			runs = []*hitl.Run{}
		}
		return printJSON(e, map[string]any{"runs": runs, "handles": handles})
	}
	if len(runs) == 0 {
		fmt.Fprintf(e.stdout, "No run is going on or waiting for a person. (%s lists finished ones too.)\n", hint("runs --all"))
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tTASK\tSTATE\tITER\tMODEL\tWAITING ON")
	for _, r := range runs {
		handle := handles[r.ID]
		if handle == "" {
			handle = r.ID
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", visible(handle), cell(orDash(issueOrTask(r)), 20), runState(r),
			iteration(r), cell(orDash(r.Control.Model), 20), waitingOn(r))
	}
	return tw.Flush()
}

func runState(r *hitl.Run) string {
	st := string(r.Control.Status)
	if st == "" {
		st = "asking" // no agent reports on it: it only asks questions
	}
	if p := r.Status(); p == steer.RunWaitingForInput || p == steer.RunWaitingForApproval {
		st += " (" + string(p) + ")"
	}
	if s := r.Control.Session; s != nil && r.Control.Status.Active() {
		switch {
		case s.Held != "":
			st += " (held at " + visible(string(s.Held)) + ")"
		case r.Control.Status == steer.RunPaused:
			st += " (queued for the next hook call)"
		case s.Idle:
			st += " (idle)"
		}
	}
	return st
}

// issueOrTask is the loop's issue, or a session's task (its first prompt).
func issueOrTask(r *hitl.Run) string {
	if s := r.Control.Session; r.Control.IssueID == "" && s != nil {
		return s.Title
	}
	return r.Control.IssueID
}

// iteration is the run's iteration by the root's one rule (the one hitl
// pause's RESULT names), or "-".
func iteration(r *hitl.Run) string { return orDash(r.Control.Iteration()) }

func waitingOn(r *hitl.Run) string {
	if r.WaitingOn == nil {
		return "-"
	}
	return visible(r.WaitingOn.QuestionID) + " " + cell(r.WaitingOn.Question, 40)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func cmdStatus(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError(fs, "hitl status needs one run (its id, or the handle hitl runs shows): hitl status loop-1")
	}
	c := newClient(e)
	id, err := resolveRun(ctx, c, pos[0])
	if err != nil {
		return err
	}
	run, err := c.RunRecord(ctx, id)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e, run)
	}
	ctl := run.Control
	fmt.Fprintf(e.stdout, "Run %s: %s, iteration %s, model %s\n", visible(run.ID), runState(run), iteration(run), visible(orDash(ctl.Model)))
	if s := ctl.Session; s != nil {
		fmt.Fprintf(e.stdout, "%s session in %s", visible(s.Agent), visible(orDash(s.CWD)))
		if s.AgentVersion != "" {
			fmt.Fprintf(e.stdout, " (version %s)", visible(s.AgentVersion))
		}
		fmt.Fprintln(e.stdout)
		if s.Title != "" {
			fmt.Fprintf(e.stdout, "First prompt: %s\n", cell(s.Title, steer.MaxTitleLen))
		}
		if w := s.Outdated(); w != "" {
			fmt.Fprintf(e.stdout, "Warning: %s\n", w)
		}
	} else if ctl.IssueID != "" || ctl.Mode != "" {
		fmt.Fprintf(e.stdout, "Issue %s, mode %s\n", visible(orDash(ctl.IssueID)), visible(orDash(ctl.Mode)))
	}
	if ctl.Reason != "" {
		fmt.Fprintf(e.stdout, "Ended: %s\n", visible(ctl.Reason))
	}
	if ctl.EscalationReason != "" {
		fmt.Fprintf(e.stdout, "Escalated: %s\n", visible(ctl.EscalationReason))
	}
	if ctl.Instruction != "" {
		fmt.Fprintf(e.stdout, "Instruction waiting for the next iteration: %s\n", visible(ctl.Instruction))
	}
	if ctl.LastStateAt != nil {
		fmt.Fprintf(e.stdout, "Last report: %s\n", ctl.LastStateAt.Local().Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintf(e.stdout, "Questions: %d, %d pending\n", run.Questions, run.Pending)
	if run.Questions == 0 {
		return nil
	}
	return cmdHistory(ctx, []string{run.ID}, e)
}

func cmdPrompt(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("prompt", flag.ContinueOnError)
	level := fs.Int("threshold", -1, "the interaction threshold, 0-5")
	run := fs.String("run", e.getenv("HITL_RUN"), "the run whose threshold applies (HITL_RUN)")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	if *level >= 0 {
		if err := hitl.ValidateThreshold("--threshold", *level); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, hitl.ThresholdInstruction(*level))
		return nil
	}
	text, err := newClient(e).ThresholdInstruction(ctx, *run)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, text)
	return nil
}
