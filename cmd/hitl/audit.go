package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/observe"
)

// cmdAudit reads the audit trail (admins): hitl audit export, hitl audit
// verify.
func cmdAudit(ctx context.Context, args []string, e *env) error {
	return subcommand(ctx, "audit", args, e, map[string]command{"export": auditExport, "verify": auditVerify},
		"usage: hitl audit export [--since D] [--format jsonl|csv] | verify [--json]")
}

func auditExport(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("audit export", flag.ContinueOnError)
	since := fs.String("since", "", "records from `D` on: a date (2026-11-01), a time (RFC 3339) or a duration back from now (7d, 24h); default: all")
	format := fs.String("format", "jsonl", "jsonl (one record a line, as hashed, with its hash) or csv")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageError(fs, "hitl audit export takes no arguments: hitl audit export --since 7d --format csv")
	}
	if *format != "jsonl" && *format != "csv" {
		return usageError(fs, fmt.Sprintf("--format %q: use jsonl or csv", *format))
	}
	f := hitl.AuditFilter{Limit: 1000}
	if *since != "" {
		if f.Since, err = parseAuditSince(*since, time.Now()); err != nil {
			return usageError(fs, fault.Message(err))
		}
	}
	c := newClient(e)
	var w *csv.Writer
	if *format == "csv" {
		w = csv.NewWriter(e.stdout)
		_ = w.Write(auditColumns)
	}
	for {
		page, err := c.AuditPage(ctx, f)
		if err != nil {
			return err
		}
		for _, r := range page.Records {
			if w != nil {
				_ = w.Write(auditRow(r))
				continue
			}
			line, err := auditLine(r)
			if err != nil {
				return err
			}
			if _, err := e.stdout.Write(line); err != nil {
				return err
			}
		}
		if w != nil {
			if w.Flush(); w.Error() != nil {
				return w.Error()
			}
		}
		if page.NextAfter == 0 {
			return nil
		}
		f.After = page.NextAfter
	}
}

// parseAuditSince reads --since: a date, an RFC 3339 time, or a duration
// back from now.
func parseAuditSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	d, err := observe.ParseSince(s)
	if err != nil {
		return time.Time{}, fault.Errorf(fault.EINVALID, "--since %q: use a date (2026-11-01), a time (2026-11-01T09:00:00Z) or a duration (7d, 24h)", s)
	}
	return now.Add(-d), nil
}

// auditLine is r as an export line: its canonical encoding with its hash
// added last, so that the line minus ,"hash":"…" hashes to the hash.
func auditLine(r *hitl.AuditRecord) ([]byte, error) {
	body := r.Canonical()
	if !bytes.HasSuffix(body, []byte("}")) {
		return nil, fmt.Errorf("audit record %d: malformed encoding", r.Seq)
	}
	hash, _ := json.Marshal(r.Hash)
	line := append(body[:len(body)-1:len(body)-1], []byte(`,"hash":`)...)
	line = append(line, hash...)
	return append(line, "}\n"...), nil
}

var auditColumns = []string{"seq", "at", "kind", "actor", "edge", "eventSeq", "questionId", "runId", "question", "answer",
	"redacted", "edited", "text", "operation", "rule", "action", "reason", "count", "people", "handedFrom", "diff", "target",
	"prev", "hash"}

func auditRow(r *hitl.AuditRecord) []string {
	num := func(n uint64) string {
		if n == 0 {
			return ""
		}
		return strconv.FormatUint(n, 10)
	}
	red := ""
	if r.Redacted {
		red = "true"
	}
	count := ""
	if r.Count != 0 {
		count = strconv.Itoa(r.Count)
	}
	return []string{num(r.Seq), r.At.UTC().Format(time.RFC3339Nano), string(r.Kind), r.Actor, r.Edge, num(r.EventSeq),
		r.QuestionID, r.RunID, r.Question, r.Answer, red, r.Edited, r.Text, r.Operation, r.Rule, r.Action, r.Reason, count,
		strings.Join(r.People, " "), strings.Join(r.HandedFrom, " "), strings.Join(r.Diff, "\n"), r.Target, r.Prev, r.Hash}
}

func auditVerify(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("audit verify", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the verdict as JSON")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageError(fs, "hitl audit verify takes no arguments")
	}
	v, err := newClient(e).Verify(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		if err := printJSON(e, v); err != nil {
			return err
		}
	} else if v.Break == nil {
		from := "record 1"
		if v.Checkpoint != nil {
			from = fmt.Sprintf("the signed checkpoint at %d", v.Checkpoint.Seq)
		}
		fmt.Fprintf(e.stdout, "the audit trail verifies: %d records from %s to the head %d (%s)\n", v.Records, from, v.Head.Seq, v.Head.Hash)
	}
	if v.Break != nil {
		return &outcome{code: exitAuditBroken, msg: "hitl audit verify: " + visible(v.Break.Message)}
	}
	return nil
}
