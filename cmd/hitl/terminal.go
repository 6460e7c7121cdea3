package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"golang.org/x/term"
)

type waitResult struct {
	q   *hitl.Question
	err error
}

// askTerminal asks q on the terminal while it also waits for a remote
// answer (Slack, another terminal); the first answer wins. Interrupting
// leaves the question pending.
func askTerminal(ctx context.Context, c *client.Client, q *hitl.Question, e *env) (*hitl.Question, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	remote := make(chan waitResult, 1)
	go func() {
		got, err := c.Wait(wctx, q.ID)
		remote <- waitResult{got, err}
	}()
	lines := make(chan string)
	go readLines(e.stdin, q.Sensitive, e.stderr, lines)
	prompt(e, q)
	for {
		select {
		case r := <-remote:
			if r.err == nil && !r.q.Pending() {
				fmt.Fprintf(e.stderr, "\nhitl: answered elsewhere by %s\n", visible(auth.PersonName(r.q.RespondedBy)))
			}
			return r.q, r.err
		case <-ctx.Done():
			return q, ctx.Err()
		case line, ok := <-lines:
			if !ok { // terminal closed: keep waiting for a remote answer
				r := <-remote
				return r.q, r.err
			}
			got, err := c.Answer(ctx, q.ID, hitl.Response{Value: line})
			switch fault.Code(err) {
			case "":
				return got, nil
			case fault.EINVALID:
				fmt.Fprintf(e.stderr, "%s\n> ", visibleLines(fault.Message(err)))
			case fault.ECONFLICT: // someone else was first
				r := <-remote
				return r.q, r.err
			default:
				return nil, err
			}
		}
	}
}

func prompt(e *env, q *hitl.Question) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n❓ %s\n", visibleLines(q.Question))
	if f := flagged("The question", q.Question); f != "" {
		fmt.Fprintf(&b, "   %s\n", f)
	}
	switch q.ResponseType {
	case hitl.ChoiceResponse:
		for _, o := range q.Options {
			fmt.Fprintf(&b, "   %s) %s\n", visible(o.ID), visible(o.Label))
		}
	case hitl.BooleanResponse:
		b.WriteString("   (yes/no)\n")
	case hitl.ApprovalResponse:
		b.WriteString("   (approve/deny)\n")
	}
	if q.Sensitive {
		b.WriteString("   (input hidden)\n")
	}
	fmt.Fprintf(&b, "   (or answer elsewhere: %s)\n> ", valueHint(q))
	fmt.Fprint(e.stderr, b.String())
}

// readLines sends each non-empty line typed; hidden when sensitive and the
// input is a terminal (then the newline the person typed, which the
// terminal did not echo, is written to echo). It closes lines at end of
// input.
func readLines(in io.Reader, hidden bool, echo io.Writer, lines chan<- string) {
	defer close(lines)
	if f, ok := in.(*os.File); ok && hidden && term.IsTerminal(int(f.Fd())) {
		for {
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(echo)
			if err != nil {
				return
			}
			if s := strings.TrimSpace(string(b)); s != "" {
				lines <- s
			}
		}
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			lines <- s
		}
	}
}

// readAnswer reads one answer to q from stdin for hitl answer: hidden when
// q is sensitive and stdin is a terminal.
func readAnswer(e *env, q *hitl.Question) (string, error) {
	lines := make(chan string)
	go readLines(e.stdin, q.Sensitive, e.stderr, lines)
	fmt.Fprintf(e.stderr, "%s\n", visibleLines(q.Question))
	if f := flagged("The question", q.Question); f != "" {
		fmt.Fprintln(e.stderr, f)
	}
	fmt.Fprint(e.stderr, "> ")
	line, ok := <-lines
	if !ok {
		return "", fault.Errorf(fault.EINVALID, "no answer on standard input")
	}
	return line, nil
}
