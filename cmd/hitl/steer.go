package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/runhandle"
	"github.com/hitlbot/hitl/steer"
)

// cmdSteer returns the controller verb for command: hitl pause|resume RUN
// (both live here; the other steering commands have their own files and
// send through sendSteer).
func cmdSteer(c steer.Command) func(context.Context, []string, *env) error {
	return func(ctx context.Context, args []string, e *env) error {
		fs := flag.NewFlagSet(string(c), flag.ContinueOnError)
		pos, err := parseArgs(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return usageError(fs, fmt.Sprintf("hitl %s needs one run (its id, or the handle hitl runs shows): hitl %s loop-1703123456-12345", c, c))
		}
		return sendSteer(ctx, e, c, pos[0], steer.ControlPayload{})
	}
}

// steer looks the run up (waiting out an outage of the service for up to
// client.RequestExpiry, 30 s, as the request does), sends one REQUEST
// (retried with the same request_id until it is acknowledged, for up to
// 30 s) and prints its RESULT: one line, exit 0 on success; on failure the
// RESULT's code and message and the table's code.
func sendSteer(ctx context.Context, e *env, c steer.Command, name string, p steer.ControlPayload) error {
	cl := newClient(e)
	var run string
	err := cl.Retrying(ctx, time.Now().Add(client.RequestExpiry), func() (err error) {
		run, err = resolveRun(ctx, cl, name)
		return err
	})
	if err != nil {
		return err
	}
	msgs, err := cl.Control(ctx, steer.NewRequest(client.NewRequestID(), c, run, time.Now(), p))
	if err != nil {
		return err
	}
	if len(msgs) == 0 {
		return fault.Errorf(fault.EUNAVAILABLE, "the service answered without saying whether the request was carried out")
	}
	res := msgs[len(msgs)-1]
	if code, failed := res.Failed(); failed {
		return &outcome{code: resultCode(code), msg: fmt.Sprintf("hitl %s: %s: %s", c, code, visible(res.Payload.Message))}
	}
	if res.Type != steer.MessageResult {
		return &outcome{code: exitFailure, msg: fmt.Sprintf("hitl %s: request %s was received; it is not carried out yet", c, res.RequestID)}
	}
	line := fmt.Sprintf("%s %s: %s", c, visible(run), visible(res.Payload.Message))
	if res.Payload.NewModel != "" {
		line = fmt.Sprintf("%s %s: %s → %s", c, visible(run), visible(orNone(res.Payload.PreviousModel)), visible(res.Payload.NewModel))
	}
	fmt.Fprintln(e.stdout, line)
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// resolveRun returns the run name means (runhandle.Resolve: its id, or the
// handle hitl runs shows, or any unique prefix of a run's id, active or
// ended): not_found (exit 7) when no run is named so or starts so, invalid
// (exit 2) naming the candidates when several do. A principal that may
// not list runs (an ask-only token) names its runs in full: the name is
// then the service's to judge.
func resolveRun(ctx context.Context, c *client.Client, name string) (string, error) {
	id, err := runhandle.Resolve(ctx, c, name)
	if fault.Code(err) == fault.EFORBIDDEN {
		return name, nil
	}
	return id, err
}
