package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/sandbox"
)

// cmdSandbox runs a command in a Landlock domain (package sandbox): it
// says which ABI it got and what that leaves unenforced, then replaces
// itself with the command. Without Landlock it refuses (exit 10) unless
// --best-effort.
func cmdSandbox(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	var spec sandbox.Spec
	fs.Var((*pathFlag)(&spec.Exec), "exec", "a program it may execute (a name on PATH, a path; a directory: every program beneath it); repeat")
	fs.Var((*pathFlag)(&spec.Read), "read", "read only beneath these paths (default: everything but --deny-read); repeat")
	fs.Var((*pathFlag)(&spec.Write), "write", "a path it may write (a directory: everything beneath it); repeat")
	fs.Var((*pathFlag)(&spec.DenyRead), "deny-read", "a path it may not read; repeat")
	fs.Var((*pathFlag)(&spec.Net), "net", "HOST:PORT it may connect to over TCP (the port is enforced, not the host); repeat")
	fs.BoolVar(&spec.BestEffort, "best-effort", false, "run even where the kernel has no Landlock, saying what is not enforced")
	quiet := fs.Bool("quiet", false, "do not say which ABI it got and what is not enforced (refusals are still said)")
	var command []string
	for i, a := range args {
		if a == "--" {
			args, command = args[:i], args[i+1:]
			break
		}
	}
	if extra, err := parseArgs(fs, args); err != nil {
		return err
	} else if len(extra) > 0 || len(command) == 0 {
		return usageError(fs, "hitl sandbox needs the command after --: hitl sandbox --exec git -- git status")
	}
	abi := e.landlockABI()
	if abi == 0 && !spec.BestEffort {
		return &outcome{code: exitRefused, msg: fmt.Sprintf("hitl sandbox: this kernel has no Landlock (Linux 5.13+ with landlock in its LSM list), so nothing would be enforced; not running %s (--best-effort runs it anyway)",
			visible(shellJoin(command)))}
	}
	dir, err := os.Getwd()
	if err != nil {
		return fault.Errorf(fault.EINVALID, "hitl sandbox: %v", err)
	}
	plan, err := sandbox.Build(spec, command, abi, e.getenv("PATH"), dir)
	if err != nil {
		return fault.Errorf(fault.EINVALID, "hitl sandbox: %v", err)
	}
	if !*quiet || abi == 0 {
		fmt.Fprintln(e.stderr, "hitl sandbox: "+plan.Summary())
	}
	if e.sandboxExec != nil {
		return e.sandboxExec(plan, command)
	}
	return fault.Errorf(fault.EINTERNAL, "hitl sandbox: %v", sandbox.Exec(plan, command, os.Environ()))
}

// landlockABI is the kernel's Landlock ABI (injected by tests).
func (e *env) landlockABI() int {
	if e.abi != nil {
		return e.abi()
	}
	return sandbox.KernelABI()
}

// pathFlag collects a repeated flag's values whole (a path may hold a comma).
type pathFlag []string

func (l *pathFlag) String() string { return strings.Join(*l, " ") }

func (l *pathFlag) Set(v string) error {
	if v == "" {
		return fmt.Errorf("an empty value")
	}
	*l = append(*l, v)
	return nil
}
