package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/observe"
)

// cmdStats prints the key metrics over a window (docs/operations.md#metrics-stats-and-alerts).
func cmdStats(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	since := fs.String("since", "24h", "the window: the last `D` (like 24h, 90m or 7d)")
	runID := fs.String("run", "", "only the questions and events of run `R`")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageError(fs, "hitl stats takes no arguments: hitl stats --since 24h")
	}
	d, err := observe.ParseSince(*since)
	if err != nil {
		return usageError(fs, fault.Message(err))
	}
	c := newClient(e)
	if *runID != "" {
		if *runID, err = resolveRun(ctx, c, *runID); err != nil {
			return err
		}
	}
	st, err := c.Stats(ctx, observe.StatsQuery{Since: d, Run: *runID})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e, st)
	}
	return printStats(e, st, d)
}

func printStats(e *env, st *observe.Stats, d time.Duration) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	what := "All runs"
	if st.Run != "" {
		what = "Run " + visible(st.Run)
	}
	fmt.Fprintf(tw, "%s, the last %s (since %s)\n", what, d, st.Since.Local().Format("2006-01-02 15:04:05"))
	fmt.Fprintf(tw, "Asked\t%d\n", st.Asked)
	fmt.Fprintf(tw, "Answered\t%d\n", st.Answered)
	fmt.Fprintf(tw, "Timed out\t%d\n", st.TimedOut)
	fmt.Fprintf(tw, "Cancelled\t%d\n", st.Cancelled)
	fmt.Fprintf(tw, "Time to answer\tavg %s, p50 %s, p90 %s\n", seconds(st.AvgTimeToAnswerSeconds),
		seconds(st.P50TimeToAnswerSeconds), seconds(st.P90TimeToAnswerSeconds))
	fmt.Fprintf(tw, "Response rate\t%.0f%%\n", st.ResponseRate*100)
	fmt.Fprintf(tw, "Questions per run\t%.1f\n", st.QuestionsPerRun)
	types := make([]hitl.QuestionType, 0, len(st.TimeoutRateByType))
	for t := range st.TimeoutRateByType {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		fmt.Fprintf(tw, "Timeout rate, %s\t%.0f%%\n", visible(string(t)), st.TimeoutRateByType[t]*100)
	}
	fmt.Fprintf(tw, "Reminders sent\t%d\n", st.RemindersSent)
	fmt.Fprintf(tw, "Escalations\t%d\n", st.Escalations)
	if len(st.Alerts) == 0 {
		fmt.Fprintf(tw, "Alerts\tnone active\n")
	}
	for _, a := range st.Alerts {
		fmt.Fprintf(tw, "Alert %s\t%s (since %s)\n", visible(a.Name), cell(a.Message, 120), a.Since.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

// seconds renders a number of seconds as a duration ("2m30s"; "-" for 0).
func seconds(s float64) string {
	if s == 0 {
		return "-"
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}
