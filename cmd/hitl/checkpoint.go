package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
)

// checkpointLine is what hitl checkpoint prints: one JSON line.
type checkpointLine struct {
	Status      steer.RunStatus `json:"status"`
	Model       string          `json:"model,omitempty"`
	NewModel    string          `json:"newModel,omitempty"`
	Instruction string          `json:"instruction,omitempty"`
}

// cmdCheckpoint is a shell loop's iteration boundary: it reports STATE
// (registering the run on first use), prints one JSON line (the model to
// use, a new instruction once), blocks while the run is paused, and exits
// 5 once it is cancelled.
func cmdCheckpoint(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("checkpoint", flag.ContinueOnError)
	var f loopFlags
	f.register(fs, e)
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	if f.run == "" {
		return usageError(fs, "hitl checkpoint needs --run (or HITL_RUN): hitl checkpoint --run loop-1 --iter 3 --max 10")
	}
	if f.threshold >= 0 {
		if err := hitl.ValidateThreshold("--threshold", f.threshold); err != nil {
			return err
		}
	}
	c := newClient(e)
	cp, err := reportWaiting(ctx, c, e, &f, "hitl: run %s is paused; waiting for resume (hitl resume %s)\n")
	if err != nil {
		return err
	}
	switch cp.Status {
	case steer.RunCancelled, steer.RunDone, steer.RunAborted:
		msg := fmt.Sprintf("hitl: run %s is %s", visible(f.run), cp.Status)
		if cp.Reason != "" {
			msg += ": " + visible(cp.Reason)
		}
		return &outcome{code: exitCancelled, msg: msg}
	}
	b, _ := json.Marshal(checkpointLine{Status: cp.Status, Model: cp.Model, NewModel: cp.NewModel, Instruction: cp.Instruction})
	fmt.Fprintln(e.stdout, string(b))
	return nil
}
