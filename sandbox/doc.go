// Package sandbox is the Landlock edge: it runs a command in a Landlock
// domain built from a Spec (the programs it may execute, the paths it may
// write, the paths it may not read, the TCP ports it may connect to), so
// that what a command line does is bounded by the kernel, not only by
// what the policy read in its words.
//
// Landlock restricts the calling thread and what it executes: Exec builds
// the ruleset, restricts the locked OS thread and replaces the process
// with the command (syscall.Exec). It is what `hitl sandbox` runs; the
// hooks and `hitl gate` run a decided command line under it with the
// grant the decision gives (hitl.CommandGrant, Args).
//
// What each ABI leaves unenforced is data (abi.go); docs/security.md
// says what the kernel enforces and what it does not.
package sandbox
