// Command hitl is the human-in-the-loop service and its CLI: `hitl serve`
// runs the service; `hitl ask` lets an agent ask a person and wait;
// `hitl pending` / `hitl answer` let a person answer from a terminal.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hitlbot/hitl"
)

const usage = `hitl: a human in the loop of your agents, through Slack and the terminal.

Usage:
  hitl serve   [--listen ADDR] [--db FILE] [--config FILE]   run the service
  hitl ask     QUESTION [flags]       ask a person and print the answer (hitl ask --help)
  hitl pending [--json]               list questions waiting for an answer
  hitl answer  ID [VALUE|-] [--text T]  answer a question (no VALUE or -: read it from stdin, hidden)
  hitl history RUN [--json]           a run's phase, pending question and answers

Environment: HITL_URL (default http://127.0.0.1:7070), HITL_TOKEN, HITL_RUN,
HITL_LISTEN, HITL_DB, HITL_CONFIG, HITL_TOKENS, SLACK_APP_TOKEN, SLACK_BOT_TOKEN,
HITL_SLACK_CHANNEL, HITL_SLACK_API_URL.

Exit codes: 0 answered/approved, 1 error, 2 usage, 3 denied, 4 timed out,
5 cancelled, 6 already answered, 7 not found, 101 needs input, 130 interrupted.
`

// env is the process environment, injected so tests can run commands.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}))
}

// run executes one command and returns its exit code.
func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(e.stdout, usage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmds := map[string]func(context.Context, []string, *env) error{
		"serve":   cmdServe,
		"ask":     cmdAsk,
		"pending": cmdPending,
		"answer":  cmdAnswer,
		"history": cmdHistory,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "hitl: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	err := cmd(ctx, args[1:], e)
	var ex *outcome
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ex):
		if ex.msg != "" {
			fmt.Fprintln(e.stderr, ex.msg)
		}
		return ex.code
	default:
		fmt.Fprintf(e.stderr, "hitl %s: %s\n", args[0], hitl.ErrorMessage(err))
		return exitCode(err)
	}
}

// exitError ends a command with a given code and message (for outcomes that
// are not errors of hitl, like 101 needs input).
type outcome struct {
	code int
	msg  string
}

func (e *outcome) Error() string { return e.msg }
