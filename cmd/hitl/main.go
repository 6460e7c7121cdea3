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
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/sandbox"
	"github.com/hitlbot/hitl/steer"
	"golang.org/x/term"
)

var usage = `hitl: a human in the loop of your agents, through Slack and the terminal.

Usage:
  hitl serve   [--listen ADDR] [--db FILE|URL] [--config FILE] [--quiet]
                                      run the service; without Slack it prints a line per
                                      question asked and settled (--quiet: it does not)
  hitl ask     QUESTION [flags]       ask a person and print the answer (hitl ask --help)
  hitl pending [--run RUN] [--all] [--json] [--order deadline]
                                      list questions waiting for an answer (the first 100;
                                      --all: every one; --order deadline: soonest deadline first)
  hitl show    ID [--color auto|always|never] [--json]
                                      one question whole: the operation, how the policy decided,
                                      the context, each file change's diff (coloured on a terminal)
  hitl answer  ID [VALUE|-] [--text T]  answer a question (no VALUE or -: read it from stdin, hidden)
  hitl cancel  ID [--reason R]        cancel a pending question (or, given a run, the run)
  hitl reassign ID TO…                hand a question to Slack users or groups (U…, S…),
                                      who replace its assignees
  hitl history RUN [--json]           a run's status, pending question and answers
  hitl stats   [--since D] [--run R] [--json]  time to answer, timeout rate by type, questions
                                      per run, response rate, reminders, escalations, alerts
  hitl compact [--db FILE]            shrink a stopped service's database file to its
                                      live data; prints the size before and after
  hitl migrate --from FILE --to postgres://… [--force]
                                      copy a stopped service's bbolt file into PostgreSQL;
                                      refuses a database that holds anything unless --force
  hitl version                        print hitl's version (also hitl --version)
  hitl doctor  [--dir PROJECT]        check this machine's wiring: hitl on PATH, the service and
                                      the token, Claude Code's and Codex's hooks, Claude Code's
                                      version, the MCP entry; one line per check (exit 1: a problem)
  hitl webhooks list | deliveries [--status failed] | replay ID | test NAME
                                      webhook endpoints (last success, failures, queue), deliveries,
                                      send one again, send a signed ping (admins)
  hitl audit export [--since D] [--format jsonl|csv]
                                      the audit trail: every decision and change of who may
                                      decide, hash-chained (admins)
  hitl audit verify [--json]          check the audit trail's chain; names the first record
                                      changed, removed or reordered (exit 13)

Steerable loops (agents):
  hitl checkpoint --run ID [--iter N --max M --model X --issue I --mode M --threshold T]
                                      report an iteration; prints {"status","model","newModel","instruction"};
                                      blocks while paused; exits 5 once cancelled
  hitl done  --run ID                 the loop finished
  hitl abort --run ID --reason R      the loop gave up
  hitl run   --run ID [--grace 10s] -- COMMAND ARGS…
                                      supervise any command: pause → SIGSTOP, resume → SIGCONT,
                                      cancel → SIGTERM then SIGKILL; exits with its code (5 if cancelled)
  hitl prompt [--threshold N | --run ID]  the asking instruction for an interaction threshold

Agents (Claude Code, Codex CLI, any MCP client; see README):
  hitl hook claude|codex [--wait 9m] [--run ID] [--decide-tools=false]
                                      a hook, for every session event: reads the event JSON on stdin,
                                      reports the session (a run people steer), decides tool calls by
                                      policy (asking people when it says so), prints what the agent
                                      acts on; after --wait it leaves the decision to the agent's prompt
  hitl mcp [--run ID] [--max-wait 10m] [--progress-every 15s] [--cancel-on-abort]
                                      the MCP server over stdio: ask_human, get_answer,
                                      request_approval, permission_prompt
  hitl watch [--run ID] [DIR…]        engines that pause with a file: ask each DIR/.delta/interaction/request.json
                                      in hitl, write the answer to response.txt beside it (default DIR .)

Steering (people; RUN is a run's id, the handle hitl runs shows, or any unique prefix):
  hitl pause RUN                      pause a loop at its next checkpoint
  hitl resume RUN                     resume a paused loop
  hitl cancel RUN                     cancel a loop (hitl cancel q_… cancels a question)
  hitl escalate RUN --model M [--reason R]   switch the loop's model
  hitl redirect RUN INSTRUCTION…      give the loop a new instruction
  hitl runs [--all] [--json]          runs going on or waiting for a person, by handle
                                      (--all: finished ones too)
  hitl status RUN [--json]            a run's state and its questions

Approvals by policy:
  hitl gate [--op-type shell] [--risk R] [--reason TEXT] [--timeout D] [--run ID] -- COMMAND ARGS…
                                      ask when the policy says so, then run the command (an edited one
                                      instead, shown first); exits 3 denied, 4 timed out, else its code
  hitl sandbox [--exec PROG]… [--read PATH]… [--write PATH]… [--deny-read PATH]… [--net HOST:PORT]…
               [--best-effort] [--quiet] -- COMMAND ARGS…
                                      run a command in a Landlock domain: it executes only the programs,
                                      writes only the paths, reads all but the denied paths, connects
                                      only to the ports named; exits 10 where the kernel has no Landlock
  hitl policy show | rules [--agent A] [--all] | revoke ID | check --op-type T [--resource R] [--risk R] [--agent A] [--prompted] [--json]

Environment: HITL_URL (default http://127.0.0.1:7070; several, comma-separated,
fail over to the next), HITL_TOKEN, HITL_RUN,
HITL_LISTEN, HITL_DB, HITL_SEAL_KEY_FILE, HITL_CONFIG, HITL_RETENTION, HITL_TOKENS, SLACK_APP_TOKEN,
SLACK_BOT_TOKEN, HITL_SLACK_CHANNEL, HITL_SLACK_API_URL.

` + exitCodesText() + `
Text from agents and people is printed with control, bidi and zero-width
characters made visible (ESC as <U+001B>) and flagged; the answer hitl
ask prints on stdout is raw unless stdout is a terminal.
`

// env is the process environment, injected so tests can run commands.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// stdoutTTY says stdout is a terminal: values printed for scripts are
	// then made visible too.
	stdoutTTY bool
	// after is time.After, injected so tests need not wait (nil: time.After).
	after func(time.Duration) <-chan time.Time
	// abi is the kernel's Landlock ABI (nil: asked of the kernel), and
	// sandboxExec enters the sandbox (nil: sandbox.Exec): injected so
	// tests can simulate a kernel without Landlock (sandbox.go).
	abi         func() int
	sandboxExec func(p *sandbox.Plan, argv []string) error
}

// afterFunc returns the env's time.After.
func (e *env) afterFunc() func(time.Duration) <-chan time.Time {
	if e.after == nil {
		return time.After
	}
	return e.after
}

// ticker returns a channel that ticks every d (the env's clock).
func (e *env) ticker(d time.Duration) <-chan time.Time {
	if e.after == nil {
		return time.NewTicker(d).C
	}
	return e.after(d) // tests: one tick when they choose
}

func (e *env) wait(ctx context.Context, d time.Duration) error {
	after := e.after
	if after == nil {
		after = time.After
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-after(d):
		return nil
	}
}

func main() { os.Exit(process(os.Args[1:])) }

// process is hitl as a process, returning its exit code: Ctrl+C (SIGINT)
// and SIGTERM end the command's context, so that a command that runs
// until stopped (serve, watch, a wait) stops cleanly.
func process(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	name := invokedAs(os.Args[0], exec.LookPath)
	self.Store(&name)
	return run(ctx, args, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv,
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd()))})
}

// commands are hitl's commands by name; the usage text and README.md list
// the same ones.
var commands = map[string]command{
	"serve":    cmdServe,
	"ask":      cmdAsk,
	"pending":  cmdPending,
	"answer":   cmdAnswer,
	"cancel":   cmdCancel,
	"reassign": cmdReassign, // reassign.go
	"history":  cmdHistory,
	"show":     cmdShow, // show.go
	"stats":    cmdStats,
	"compact":  cmdCompact,
	"migrate":  cmdMigrate,
	"version":  cmdVersion,

	"checkpoint": cmdCheckpoint,
	"done":       cmdDone,
	"abort":      cmdAbort,
	"run":        cmdRun,
	"prompt":     cmdPrompt,

	"pause":    cmdSteer(steer.CommandPause),
	"resume":   cmdSteer(steer.CommandResume),
	"escalate": cmdEscalate,
	"redirect": cmdRedirect,
	"runs":     cmdRuns,
	"status":   cmdStatus,

	"policy": cmdPolicy,
	"audit":  cmdAudit, // audit.go
	"gate":   cmdGate,

	"sandbox": cmdSandbox, // sandbox.go

	"hook": cmdHook,
	"mcp":  cmdMCP,

	"watch": cmdWatch,

	"doctor":   cmdDoctor,   // doctor.go
	"webhooks": cmdWebhooks, // webhooks.go
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
	if args[0] == "--version" || args[0] == "-version" {
		args = []string{"version"}
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintln(e.stderr, unknownCommand(args[0]))
		return exitUsage
	}
	err := cmd(ctx, args[1:], e)
	var ex *outcome
	var ue *usageErr
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ex):
		if ex.help != "" {
			fmt.Fprint(e.stdout, ex.help) // hitl's own text, tabs and all
		}
		if ex.msg != "" {
			fmt.Fprintln(e.stderr, visibleLines(ex.msg))
		}
		return ex.code
	case errors.As(err, &ue):
		// What was wrong may quote what was typed: made visible. The
		// flag help after it is hitl's own text.
		fmt.Fprintf(e.stderr, "%s\n%s", prefixed(args[0], visibleLines(fault.Message(err))), ue.help)
		return exitCode(err)
	default:
		fmt.Fprintln(e.stderr, prefixed(args[0], visibleLines(fault.Message(err)))+tokenHint(err, e))
		return exitCode(err)
	}
}

// prefixed is msg after "hitl NAME: ", unless msg already names the
// command ("hitl ask needs a question").
func prefixed(name, msg string) string {
	if strings.HasPrefix(msg, "hitl "+name+" ") || strings.HasPrefix(msg, "hitl "+name+":") {
		return msg
	}
	return "hitl " + name + ": " + msg
}

// unknownCommand is the one line for a command hitl does not have: the
// closest command when one is close.
func unknownCommand(name string) string {
	msg := fmt.Sprintf("hitl: unknown command %q", name)
	if c := closest(name); c != "" {
		msg += fmt.Sprintf("; did you mean hitl %s?", c)
	}
	return msg + " (hitl --help lists the commands)"
}

// closest is the command nearest name: the only one name begins, or the
// one fewest edits away (at most 2, and fewer than half of name).
func closest(name string) string {
	var prefixOf []string
	best, bestD := "", 3
	for c := range commands {
		if len(name) >= 2 && strings.HasPrefix(c, name) {
			prefixOf = append(prefixOf, c)
		}
		if d := editDistance(name, c); d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	if len(prefixOf) == 1 {
		return prefixOf[0]
	}
	if best == "" || 2*bestD >= len([]rune(name)) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// outcome ends a command with a given code and message (for outcomes that
// are not errors of hitl, like 101 needs input).
type outcome struct {
	code int
	msg  string // on stderr, controls made visible
	help string // on stdout as it is: hitl's own usage text
}

func (e *outcome) Error() string { return e.msg }
