package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// cmdWebhooks is hitl webhooks list|deliveries|replay|test (admins).
func cmdWebhooks(ctx context.Context, args []string, e *env) error {
	return subcommand(ctx, "webhooks", args, e, map[string]command{"list": webhooksList, "deliveries": webhooksDeliveries, "replay": webhooksReplay, "test": webhooksTest},
		"usage: hitl webhooks list [--json] | deliveries [--status failed] [--json] | replay ID | test NAME")
}

func webhooksList(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("webhooks list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	if pos, err := parseArgs(fs, args); err != nil {
		return err
	} else if len(pos) != 0 {
		return usageError(fs, "hitl webhooks list takes no arguments")
	}
	ov, err := newClient(e).Webhooks(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e, ov)
	}
	return printWebhooks(e, ov)
}

// printWebhooks prints each endpoint (then each callback host) with its
// last success, failures and queue depth; never a secret.
func printWebhooks(e *env, ov hitl.WebhookOverview) error {
	stats := map[string]hitl.WebhookTargetStats{}
	for _, st := range ov.Targets {
		stats[st.Target] = st
	}
	if len(ov.Endpoints) == 0 && len(ov.Targets) == 0 {
		fmt.Fprintln(e.stdout, "No webhook endpoints are configured (webhooks: in the config file).")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tURL\tEVENTS\tRUNS\tLAST SUCCESS\tFAILED\tQUEUED")
	row := func(name, url, events, runs string, st hitl.WebhookTargetStats) {
		last := "never"
		if st.LastSuccess != nil {
			last = st.LastSuccess.Local().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\n", cell(name, 40), cell(url, 60), cell(events, 60), runs, last, st.Failed, st.Pending)
	}
	for _, ep := range ov.Endpoints {
		var evs []string
		for _, ev := range ep.Events {
			evs = append(evs, string(ev))
		}
		runs := ep.Runs
		if runs == "" {
			runs = "*"
		}
		row(ep.Name, ep.URL, strings.Join(evs, ","), cell(runs, 30), stats[ep.Name])
		delete(stats, ep.Name)
	}
	for _, st := range ov.Targets {
		if _, left := stats[st.Target]; left {
			row(st.Target, "-", "-", "-", st)
		}
	}
	return tw.Flush()
}

func webhooksDeliveries(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("webhooks deliveries", flag.ContinueOnError)
	status := fs.String("status", "", "only deliveries with status `S`: pending, delivered or failed")
	limit := fs.Int("limit", 0, "at most `N` (default 100)")
	asJSON := fs.Bool("json", false, "print JSON")
	if pos, err := parseArgs(fs, args); err != nil {
		return err
	} else if len(pos) != 0 {
		return usageError(fs, "hitl webhooks deliveries takes no arguments")
	}
	ds, err := newClient(e).WebhookDeliveries(ctx, hitl.WebhookFilter{Status: hitl.WebhookStatus(*status), Limit: *limit})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e, ds)
	}
	if len(ds) == 0 {
		fmt.Fprintln(e.stdout, "No deliveries.")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWEBHOOK ID\tTARGET\tTYPE\tRUN\tSTATUS\tATTEMPTS\tLAST ERROR")
	for _, d := range ds {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", d.Seq, d.ID, cell(d.Target(), 40), d.Type, cell(d.RunID, 40), d.Status, d.Attempts, cell(d.LastError, 80))
	}
	return tw.Flush()
}

func webhooksReplay(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("webhooks replay", flag.ContinueOnError)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError(fs, "hitl webhooks replay needs a delivery's ID (hitl webhooks deliveries lists them)")
	}
	seq, err := strconv.ParseUint(pos[0], 10, 64)
	if err != nil || seq == 0 {
		return usageError(fs, fmt.Sprintf("%q is not a delivery ID (a number: hitl webhooks deliveries lists them)", pos[0]))
	}
	d, err := newClient(e).ReplayWebhook(ctx, seq)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Queued delivery %d: %s of %s to %s again (webhook-id %s)\n", d.Seq, d.Type, visible(d.RunID), visible(d.Target()), d.ID)
	return nil
}

func webhooksTest(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("webhooks test", flag.ContinueOnError)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError(fs, "hitl webhooks test needs an endpoint's name (hitl webhooks list shows them)")
	}
	start := time.Now()
	res, err := newClient(e).PingWebhook(ctx, pos[0])
	if err != nil {
		return err
	}
	if res.Error != "" {
		return fault.Errorf(fault.EUNAVAILABLE, "webhook %s: %s", res.Endpoint, res.Error)
	}
	fmt.Fprintf(e.stdout, "%s answered %d to a signed webhook.ping in %s\n", visible(res.Endpoint), res.Status, time.Since(start).Round(time.Millisecond))
	return nil
}
