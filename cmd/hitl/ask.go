package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
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
	fs.StringVar(&f.run, "run", e.getenv("HITL_RUN"), "run (job) id the question belongs to (HITL_RUN; default cli-$USER@PRINCIPAL, a run only this token can start)")
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
		return n, fault.Errorf(fault.EINVALID, "choose one of --options, --yes-no and --approval")
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
		n.Context = &hitl.QuestionContext{Agent: f.agentName, CurrentStep: f.step, IssueID: f.issue}
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
	if f.run == "" {
		// The default run is this principal's own (cli-$USER@PRINCIPAL):
		// nobody else can start it first, so nobody can lock it or read it.
		if f.run, err = c.DefaultRun(ctx, "cli-"+userName(e)); err != nil {
			return err
		}
	}
	q, created, err := create(ctx, c, f, n, e)
	if ctx.Err() != nil {
		return interrupted(q, n.IdempotencyKey)
	}
	if err != nil {
		return err
	}
	if created {
	}
	switch {
	case !q.Pending():
	case q.Type == hitl.NonBlocking:
		fmt.Fprintf(e.stderr, "hitl: non-blocking question %s asked; going on with the default\n", visible(q.ID))
		printValue(e, q.DefaultResponse.String())
		return nil
	case f.noWait:
		return needsInput(ctx, c, q, n.IdempotencyKey)
	case !f.interactive:
		fmt.Fprintf(e.stderr, "hitl: waiting for an answer to %s (%s)\n", visible(q.ID), answerWhere(ctx, c, q))
	}
	got, err := await(ctx, c, q, f.interactive, e)
	if ctx.Err() != nil {
		return interrupted(q, n.IdempotencyKey)
	}
	if err != nil {
		return err
	}
	return finish(got, e)
}

// create asks n. Over the rate limit it waits as the service says (at
// least a second) and asks again; with --no-wait it returns the error.
func create(ctx context.Context, c *client.Client, f *askFlags, n hitl.NewQuestion, e *env) (*hitl.Question, bool, error) {
	for {
		// A Ctrl+C while the request is out lets it finish, briefly, so
		// that the message can name the question it asked.
		rctx, cancel := lingering(ctx, createGrace)
		q, created, err := c.Create(rctx, f.run, n)
		cancel()
		var he *fault.Error
		if fault.Code(err) != fault.ERATELIMITED || f.noWait || !errors.As(err, &he) {
			return q, created, err
		}
		d := max(he.RetryAfter, time.Second)
		d = (d + time.Second - 1).Truncate(time.Second)
		fmt.Fprintf(e.stderr, "hitl: rate limited; retrying in %s\n", d)
		if err := e.wait(ctx, d); err != nil {
			return nil, false, err
		}
	}
}

// createGrace is how long a request to ask outlives Ctrl+C.
const createGrace = 5 * time.Second

// lingering returns a context that ends grace after ctx ends.
func lingering(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(grace, cancel)
		context.AfterFunc(rctx, func() { t.Stop() })
	})
	return rctx, func() { stop(); cancel() }
}
