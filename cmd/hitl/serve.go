package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
)

func cmdServe(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", "", "address to listen on (HITL_LISTEN; default 127.0.0.1:7070)")
	db := fs.String("db", "", "bbolt database file, or a postgres:// URL for replicas (HITL_DB; default ./hitl.db)")
	cfgPath := fs.String("config", e.getenv("HITL_CONFIG"), "YAML config file (HITL_CONFIG; optional)")
	quiet := fs.Bool("quiet", false, "without Slack, do not print a line per question asked and settled")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load(*cfgPath, e.getenv)
	if err != nil {
		return err
	}
	if *listen != "" {
		cfg.Listen = *listen
	}
	if *db != "" {
		cfg.DB = *db
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))
	m := NewMain(cfg, logger)
	if err := m.Run(ctx); err != nil {
		return err
	}
	slack := "Slack off (set SLACK_APP_TOKEN and SLACK_BOT_TOKEN to turn it on); answer with `" + hint("pending") + "` and `" + hint("answer") + "`"
	if cfg.Slack.Enabled() {
		slack = "Slack on"
	}
	fmt.Fprintf(e.stderr, "hitl listening on %s, database %s; %s; web inbox at %s/\n", m.URL(), databaseName(cfg.DB), slack, m.URL())
	if printsQuestionLines(*quiet, cfg) {
		go func() {
			if err := questionLines(ctx, m.Service.Log, e.stdout); err != nil && ctx.Err() == nil {
				logger.Error("the terminal's question lines stopped", "err", err)
			}
		}()
	}
	<-ctx.Done()
	fmt.Fprintln(e.stderr, "hitl: shutting down")
	return closeWithin(m, ShutdownBound)
}

// ShutdownBound is the longest hitl serve takes to exit after SIGTERM or
// SIGINT (docs/operations.md#graceful-restarts): ShutdownGrace for the
// requests in flight, then the Slack calls, mail and webhook deliveries
// in flight and the store. Past it the process exits anyway; what was
// acknowledged is already committed.
const ShutdownBound = 15 * time.Second

// closeWithin closes m, or gives up waiting after bound.
func closeWithin(m *Main, bound time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- m.Close() }()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fault.Errorf(fault.EUNAVAILABLE, "the shutdown took longer than %s; exiting without waiting for the rest", bound)
	}
}

// printsQuestionLines says whether hitl serve prints a line per question
// asked and settled: without Slack the terminal is where people learn of
// questions, unless --quiet.
func printsQuestionLines(quiet bool, cfg config.Config) bool { return !quiet && !cfg.Slack.Enabled() }
