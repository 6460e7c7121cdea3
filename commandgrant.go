package hitl

import (
	"slices"
	"strings"
)

// CommandGrant is what a decided command line may do when it runs.
type CommandGrant struct {
	// Exec are the programs its commands name, as written (a name looked
	// up on PATH, or a path).
	Exec []string `json:"exec"`
	// Write are the files its parts write (cleaned; relative to the
	// working directory when written so).
	Write []string `json:"write"`
	// DenyRead are the paths deny rules protect from reading.
	DenyRead []string `json:"denyRead,omitempty"`
	// Net are the TCP endpoints its parts reach, HOST:PORT.
	Net []string `json:"net,omitempty"`
	// Adds are what everyday tools need beyond the words (package policy's grantAdds).
	Adds []GrantAdd `json:"adds,omitempty"`
	// Unenforced are deny rules the kernel cannot be told (a pattern
	// that is no path): the decider still applies them.
	Unenforced []string `json:"unenforced,omitempty"`
	// Enforce is how the service wants the grant held: "kernel" (run
	// under hitl sandbox where hitl sees the command run) or "" (the
	// decision alone). Set by the service from its configuration.
	Enforce string `json:"enforce,omitempty"`
}

// Text is the grant in a sentence a person reads beside the decision:
// "may run git (and git's helpers); may write nothing; no network".
func (g *CommandGrant) Text() string {
	if g == nil {
		return ""
	}
	var run, write, netw []string
	run = append(run, g.Exec...)
	write = append(write, g.Write...)
	netw = append(netw, g.Net...)
	var extra []string
	for _, a := range g.Adds {
		if !slices.Contains(extra, a.Label) {
			extra = append(extra, a.Label)
		}
		netw = append(netw, a.Net...)
	}
	parts := []string{"may run " + orNothing(run, "nothing")}
	if len(extra) > 0 {
		parts[0] += " (with " + strings.Join(extra, ", ") + ")"
	}
	parts = append(parts, "may write "+orNothing(write, "nothing"))
	if len(g.DenyRead) > 0 {
		parts = append(parts, "may not read "+strings.Join(g.DenyRead, ", "))
	}
	if len(netw) == 0 {
		parts = append(parts, "no network")
	} else {
		parts = append(parts, "may connect to "+strings.Join(netw, ", "))
	}
	return strings.Join(parts, "; ")
}

// GrantAdd is what a tool needs beyond its words, and why: a row of
// package policy's grantAdds. Paths may name places found on the agent's machine:
// {gitexec} git's helpers, {gitdir} the repository's .git, {worktree} its
// working tree, {gotool} GOROOT/pkg/tool, {gocache} go's build cache,
// {tmp} the temporary directory, {npmcache} npm's cache, {scripts} the
// programs the Makefile's recipes and package.json's scripts name.
type GrantAdd struct {
	Command string   `json:"command"`
	Exec    []string `json:"exec,omitempty"`
	Write   []string `json:"write,omitempty"`
	Net     []string `json:"net,omitempty"`
	// Label is the addition in a few words ("git's helpers"); Why says
	// why the tool needs it.
	Label string `json:"label"`
	Why   string `json:"why"`
}

// EnforceKernel is CommandGrant.Enforce for the kernel's enforcement.
const EnforceKernel = "kernel"

func orNothing(l []string, none string) string {
	if len(l) == 0 {
		return none
	}
	return strings.Join(l, ", ")
}
