package main

import (
	"context"

	"github.com/hitlbot/hitl/fault"
)

// command is one CLI command or subcommand: its arguments after its name.
type command = func(ctx context.Context, args []string, e *env) error

// subcommand runs hitl NAME SUB …: the subcommand args[0] names, help for
// -h, or the usage line (exit 2) for anything else.
func subcommand(ctx context.Context, name string, args []string, e *env, subs map[string]command, usage string) error {
	sub := ""
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	if run, ok := subs[sub]; ok {
		return run(ctx, args, e)
	}
	switch sub {
	case "-h", "-help", "--help", "help":
		return &outcome{code: exitOK, help: "usage of hitl " + name + ":\n" + synopsis(name) + "\n"}
	}
	return fault.Errorf(fault.EINVALID, "%s", usage)
}
