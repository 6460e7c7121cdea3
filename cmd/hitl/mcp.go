package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/hitlbot/hitl/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// cmdMCP serves hitl's MCP tools over stdio (package mcp) to the agent
// that started it, talking to the running service (HITL_URL, HITL_TOKEN).
func cmdMCP(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	run := fs.String("run", e.getenv("HITL_RUN"), "the run questions and approvals belong to (HITL_RUN; default mcp-$USER@PRINCIPAL, a run only this token can start)")
	every := fs.Duration("progress-every", mcp.DefaultProgressEvery, "how often a blocked tool sends the client a progress notification")
	maxWait := fs.Duration("max-wait", mcp.DefaultMaxWait, "how long a tool blocks before answering pending with the question id")
	dir := fs.String("dir", "", "the agent's working directory: relative paths of tool calls are placed in it (default: hitl mcp's own)")
	cancelOnAbort := fs.Bool("cancel-on-abort", false, "cancel a question when the client cancels the call waiting on it (default: it stays pending)")
	if extra, err := parseArgs(fs, args); err != nil {
		return err
	} else if len(extra) > 0 {
		return usageError(fs, "hitl mcp takes no arguments: an MCP client starts it and talks over stdin and stdout")
	}
	c := newClient(e)
	ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
	var err error
	if *run == "" {
		// The default run is this principal's own: nobody else can start
		// it first, so nobody can lock it or read it.
		if *run, err = c.DefaultRun(ictx, "mcp-"+userName(e)); err != nil {
			cancel()
			return err
		}
	}
	instruction, err := c.ThresholdInstruction(ictx, *run)
	cancel()
	if err != nil {
		fmt.Fprintf(e.stderr, "hitl mcp: cannot read the interaction threshold (%s); the tools say none is set\n", visible(err.Error()))
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s := mcp.New(mcp.Options{Client: c, Run: *run, Version: version(), ProgressEvery: *every, MaxWait: *maxWait,
		CancelOnAbort: *cancelOnAbort, Instruction: instruction, Logger: log, Home: e.getenv("HOME"), Dir: *dir})
	err = s.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}})
	if ctx.Err() != nil {
		return nil // interrupted: the client is gone
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
