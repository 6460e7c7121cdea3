package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/agent"
)

// askFlags are hitl ask's flags.
type askFlags struct {
	run, typ, def, channel, key, agentName, step, issue string
	options, assignees                                  listFlag
	yesNo, approval, sensitive, interactive, noWait     bool
	timeout                                             time.Duration
	hasDefault                                          bool
}

func parseAskFlags(args []string, e *env) (*askFlags, string, error) {
	f := &askFlags{}
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.StringVar(&f.run, "run", e.getenv("HITL_RUN"), "run (job) id the question belongs to (HITL_RUN; default cli-$USER)")
	fs.StringVar(&f.typ, "type", "", "blocking, non_blocking, approval or error_recovery (default blocking)")
	fs.Var(&f.options, "options", "choices, comma-separated: --options prod,staging")
	fs.BoolVar(&f.yesNo, "yes-no", false, "a yes/no question; prints yes or no")
	fs.BoolVar(&f.approval, "approval", false, "an approval; prints approved (exit 0) or denied (exit 3)")
	fs.DurationVar(&f.timeout, "timeout", 0, "how long to wait, like 10m (default by type: 30m, approval 15m, error_recovery 10m)")
	fs.StringVar(&f.def, "default", "", "answer used on timeout, and at once for non_blocking")
	fs.BoolVar(&f.sensitive, "sensitive", false, "a secret: hidden input, never shown or logged, scrubbed once delivered")
	fs.Var(&f.assignees, "assignee", "Slack user or user-group id who should answer (repeat or comma-separate)")
	fs.StringVar(&f.channel, "channel", "", "Slack channel to ask in (default: the configured channel)")
	fs.StringVar(&f.key, "key", "", "idempotency key: re-running with the same key returns the same question and, once given, its answer")
	fs.BoolVar(&f.interactive, "i", false, "also ask on this terminal; the first answer, terminal or remote, wins")
	fs.BoolVar(&f.noWait, "no-wait", false, "do not wait: exit 101 while the question is pending; re-run the same command to get the answer")
	fs.StringVar(&f.agentName, "agent", e.getenv("HITL_AGENT"), "who is asking, shown to people (HITL_AGENT)")
	fs.StringVar(&f.step, "step", "", "the step the agent is at, shown to people")
	fs.StringVar(&f.issue, "issue", "", "the issue the agent works on, shown to people")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, "", err
	}
	fs.Visit(func(fl *flag.Flag) { f.hasDefault = f.hasDefault || fl.Name == "default" })
	question := strings.TrimSpace(strings.Join(pos, " "))
	if question == "" {
		return nil, "", usageError(fs, "hitl ask needs a question: hitl ask \"Which database?\" --options prod,staging")
	}
	if f.run == "" {
		f.run = "cli-" + userName(e)
	}
	return f, question, nil
}

// newQuestion turns the flags into the API request.
func (f *askFlags) newQuestion(question string) (hitl.NewQuestion, error) {
	n := hitl.NewQuestion{Question: question, Type: hitl.QuestionType(f.typ), Sensitive: f.sensitive,
		Assignees: f.assignees, Channel: f.channel, IdempotencyKey: f.key}
	kinds := 0
	for _, b := range []bool{f.yesNo, f.approval, len(f.options) > 0} {
		if b {
			kinds++
		}
	}
	if kinds > 1 {
		return n, hitl.Errorf(hitl.EINVALID, "choose one of --options, --yes-no and --approval")
	}
	switch {
	case f.approval:
		n.Type = hitl.Approval
	case f.yesNo:
		n.ResponseType = hitl.BooleanResponse
	}
	for _, o := range f.options {
		n.Options = append(n.Options, hitl.Option{Label: o, Value: o})
	}
	if f.sensitive {
		n.InputType = hitl.PasswordInput
	}
	if f.timeout != 0 {
		m := f.timeout.Minutes()
		n.TimeoutMinutes = &m
	}
	if f.hasDefault {
		n.DefaultResponse = &hitl.Response{Value: f.def}
	}
	if f.agentName != "" || f.step != "" || f.issue != "" {
		n.Context = &hitl.Context{Agent: f.agentName, CurrentStep: f.step, IssueID: f.issue}
	}
	if f.noWait && n.IdempotencyKey == "" {
		// Re-running the same command must find the same question.
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%v\x00%v\x00%v", question, n.Type, n.ResponseType, f.options, f.yesNo, f.approval)
		n.IdempotencyKey = "auto:" + hex.EncodeToString(h.Sum(nil))[:24]
	}
	return n, nil
}

func cmdAsk(ctx context.Context, args []string, e *env) error {
	f, question, err := parseAskFlags(args, e)
	if err != nil {
		return err
	}
	n, err := f.newQuestion(question)
	if err != nil {
		return err
	}
	c := newClient(e)
	q, _, err := c.Create(ctx, f.run, n)
	if ctx.Err() != nil {
		return interrupted(nil, n.IdempotencyKey)
	}
	if err != nil {
		return err
	}
	switch {
	case !q.Pending():
		return finish(ctx, c, q, e)
	case q.Type == hitl.NonBlocking:
		fmt.Fprintf(e.stderr, "hitl: non-blocking question %s asked; going on with the default\n", q.ID)
		fmt.Fprintln(e.stdout, q.DefaultResponse.String())
		return nil
	case f.noWait:
		return needsInput(q, n.IdempotencyKey)
	}
	if f.interactive {
		q, err = askTerminal(ctx, c, q, e)
	} else {
		fmt.Fprintf(e.stderr, "hitl: waiting for an answer to %s (answer with: hitl answer %s VALUE)\n", q.ID, q.ID)
		q, err = c.Wait(ctx, q.ID)
	}
	if ctx.Err() != nil {
		return interrupted(q, n.IdempotencyKey)
	}
	if err != nil {
		return err
	}
	return finish(ctx, c, q, e)
}

// finish prints a settled question's answer (the value only, on stdout) and
// returns the outcome's exit code.
func finish(ctx context.Context, c *agent.Client, q *hitl.Question, e *env) error {
	if q.Sensitive && q.Status == hitl.StatusAnswered {
		got, err := c.Receive(ctx, q.ID)
		if err != nil {
			return err
		}
		q = got
	}
	switch q.Outcome() {
	case hitl.OutcomeCancelled:
		msg := fmt.Sprintf("hitl: question %s was cancelled by %s", q.ID, q.RespondedBy)
		if q.CancelReason != "" {
			msg += ": " + q.CancelReason
		}
		return &outcome{code: exitCancelled, msg: msg}
	case hitl.OutcomeTimedOut:
		return &outcome{code: exitTimedOut, msg: fmt.Sprintf("hitl: question %s timed out with no answer and no default", q.ID)}
	case hitl.OutcomeDefaulted:
		fmt.Fprintf(e.stderr, "hitl: question %s timed out; using the default\n", q.ID)
	}
	if q.ResponseType == hitl.ApprovalResponse {
		if q.Response.Approved() {
			fmt.Fprintln(e.stdout, "approved")
			if q.Response.Text != "" {
				fmt.Fprintf(e.stderr, "message: %s\n", q.Response.Text)
			}
			return nil
		}
		fmt.Fprintln(e.stdout, "denied")
		msg := fmt.Sprintf("hitl: denied by %s", q.RespondedBy)
		if q.Response.Text != "" {
			msg += ": " + q.Response.Text
		}
		return &outcome{code: exitDenied, msg: msg}
	}
	fmt.Fprintln(e.stdout, q.Response.String())
	if q.Response.Text != "" {
		fmt.Fprintf(e.stderr, "note: %s\n", q.Response.Text)
	}
	return nil
}

func needsInput(q *hitl.Question, key string) error {
	return &outcome{code: exitNeedsInput, msg: fmt.Sprintf(`hitl: waiting for a person to answer question %s (run %s).
  Answer it in Slack, or:  hitl answer %s VALUE
  Then re-run this same command (idempotency key %s) to get the answer.`, q.ID, q.JobID, q.ID, key)}
}

func interrupted(q *hitl.Question, key string) error {
	msg := "hitl: interrupted; the question stays pending (see hitl pending)."
	if q != nil {
		msg = fmt.Sprintf("hitl: interrupted; %s stays pending. Answer it with: hitl answer %s VALUE", q.ID, q.ID)
	}
	if key != "" {
		msg += fmt.Sprintf("\n  Re-run with --key %s to pick up its answer.", key)
	}
	return &outcome{code: exitInterrupted, msg: msg}
}
