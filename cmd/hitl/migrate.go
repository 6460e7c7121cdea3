package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/postgres"
	"github.com/hitlbot/hitl/store"
)

// cmdMigrate copies a stopped service's bbolt file into a PostgreSQL
// database, in one transaction, and checks that the target holds as many
// records of each kind as the file. It refuses a target that holds
// anything unless --force (which replaces it).
func cmdMigrate(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	from := fs.String("from", "", "the bbolt database file to copy (the service stopped)")
	to := fs.String("to", "", "the PostgreSQL database to copy it into (postgres://…)")
	force := fs.Bool("force", false, "replace what the target holds")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usageError(fs, fmt.Sprintf("hitl migrate takes no arguments (got %q): name them with --from and --to", pos[0]))
	case *from == "" || *to == "":
		return usageError(fs, "hitl migrate needs --from FILE and --to postgres://…")
	case postgres.IsURL(*from):
		return usageError(fs, "--from is a bbolt file; the PostgreSQL database goes in --to")
	case !postgres.IsURL(*to):
		return usageError(fs, fmt.Sprintf("--to %q is not a postgres:// or postgresql:// URL", *to))
	}
	src, err := store.Open(*from)
	if fault.Code(err) == fault.EUNAVAILABLE {
		return fault.Errorf(fault.EUNAVAILABLE, "%s is open in a running hitl serve: stop the service first, then migrate", *from)
	} else if err != nil {
		return err
	}
	defer src.Close()
	dst, err := postgres.Open(ctx, *to)
	if err != nil {
		return err
	}
	defer dst.Close()
	var want postgres.Counts
	err = dst.Load(ctx, *force, func(l *postgres.Loader) (uint64, uint64, *hitl.PolicyState, error) {
		t, err := src.Walk(ctx, store.Visitor{
			Question: l.Question, Event: l.Event, Run: l.Run, Control: l.Control, Learned: l.Learned,
			Delivery: l.Delivery, Delivered: l.Delivered, Mail: l.Mail, Webhook: l.Webhook, Audit: l.Audit,
		})
		if err == nil {
			err = l.MailCursor(t.MailCursor)
		}
		if err == nil {
			err = l.AuditHead(t.AuditHead, t.AuditCheckpoint)
		}
		want = l.N
		return t.LastSeq, t.OutboxCursor, t.Policy, err
	})
	if err != nil {
		return err
	}
	got, err := dst.Counts(ctx)
	if err != nil {
		return err
	}
	if got != want {
		return fault.Errorf(fault.EINTERNAL, "the copy holds %+v, the file %+v", got, want)
	}
	fmt.Fprintf(e.stdout, "copied %s to PostgreSQL: %d questions, %d events, %d runs, %d control records, %d learned rules, %d queued deliveries, %d delivery records, %d queued mails, %d webhook deliveries, %d audit records (counts checked)\n",
		visible(*from), got.Questions, got.Events, got.Runs, got.Control, got.Learned, got.Deliveries, got.Delivered, got.Mail, got.Webhooks, got.Audit)
	return nil
}
