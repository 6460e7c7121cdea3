package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/watch"
)

// cmdWatch bridges the file protocol (docs/protocol.md#the-file-bridge; package watch): each DIR's
// .delta/interaction/request.json is asked in hitl and answered in
// response.txt beside it.
func cmdWatch(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	run := fs.String("run", "", "the run the questions are asked in, with one DIR (default watch-BASENAME-HASH@PRINCIPAL: the directory's name and a hash of its absolute path, a run only this token can start)")
	agentName := fs.String("agent", e.getenv("HITL_AGENT"), "who is asking, shown to people (HITL_AGENT)")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	if *run != "" && len(paths) > 1 {
		return usageError(fs, "hitl watch --run takes one DIR: each directory is its own run")
	}
	c := newClient(e)
	dirs := make([]watch.Dir, 0, len(paths))
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return fault.Errorf(fault.EINVALID, "%s: %v", p, err)
		}
		d := watch.Dir{Path: abs, Run: *run}
		if d.Run == "" {
			if d.Run, err = defaultWatchRun(ctx, c, abs, e); err != nil {
				return err
			}
		}
		dirs = append(dirs, d)
	}
	w, err := watch.New(watch.Config{Client: c, Dirs: dirs, Agent: *agentName, Log: func(line string) {
		fmt.Fprintf(e.stderr, "hitl watch: %s\n", visible(line))
	}})
	if err != nil {
		return err
	}
	for _, d := range dirs {
		fmt.Fprintf(e.stderr, "hitl watch: watching %s in run %s\n", visible(filepath.Join(d.Path, watch.InteractionDir, watch.RequestFile)), visible(d.Run))
	}
	return w.Run(ctx)
}

// defaultWatchRun is the principal's own run named after abs, waiting for
// the service while it cannot be reached (a watcher may start first).
func defaultWatchRun(ctx context.Context, c *client.Client, abs string, e *env) (string, error) {
	d, said := 100*time.Millisecond, false
	for {
		run, err := c.DefaultRun(ctx, watch.RunName(abs))
		if fault.Code(err) != fault.EUNAVAILABLE || ctx.Err() != nil {
			return run, err
		}
		if !said {
			fmt.Fprintf(e.stderr, "hitl watch: %s; trying again\n", visible(fault.Message(err)))
			said = true
		}
		if err := e.wait(ctx, d); err != nil {
			return "", err
		}
		d = min(2*d, 5*time.Second)
	}
}
