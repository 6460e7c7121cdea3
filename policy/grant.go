package policy

import (
	"net"
	"net/url"
	"path"
	"slices"
	"strings"
)

// A decision is a grant: what a shell line's visible parts name is all it
// may do when it runs. The programs its commands name (and the helpers
// the tools of grantadds.go are documented to run), the files its parts
// write, no reading of what deny rules protect, no network unless a part
// reaches it. Where hitl sees the command run (hitl gate, the hooks with
// enforce: kernel) the kernel holds it to the grant (package sandbox),
// so that a hidden part the decider missed still cannot act.

// Grant is what a decided command line may do when it runs.
type Grant struct {
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
	// Adds are what everyday tools need beyond the words (grantAdds).
	Adds []GrantAdd `json:"adds,omitempty"`
	// Unenforced are deny rules the kernel cannot be told (a pattern
	// that is no path): the decider still applies them.
	Unenforced []string `json:"unenforced,omitempty"`
	// Enforce is how the service wants the grant held: "kernel" (run
	// under hitl sandbox where hitl sees the command run) or "" (the
	// decision alone). Set by the service from its configuration.
	Enforce string `json:"enforce,omitempty"`
}

// EnforceKernel is Grant.Enforce for the kernel's enforcement.
const EnforceKernel = "kernel"

// GrantAdd is what a tool needs beyond its words, and why: a row of
// grantAdds. Paths may name places found on the agent's machine:
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

// shellBuiltins run inside the shell itself: no program is executed.
var shellBuiltins = set("cd", "echo", "printf", "test", "[", "true", "false", "pwd", ":", "type", "command", "kill")

// GrantFor is the grant of op, a shell line: nil for any other operation
// or a line that does not parse (then nothing runs under a grant).
func (d Decider) GrantFor(op Operation) *Grant {
	if op.Type != OpShell || d.Parse == nil {
		return nil
	}
	line, err := d.Parse(op.Resource)
	if err != nil {
		return nil
	}
	g := &Grant{Exec: []string{}, Write: []string{}}
	addWrite := func(w ShellWord) {
		if !w.Literal {
			return
		}
		fp := normalisePath(w.Value, w.Tilde(), op.Home)
		if fp.homeUnknown || fp.network || fp.value == "" || slices.Contains(terminalFiles, fp.value) {
			return
		}
		g.Write = appendNew(g.Write, fp.value)
	}
	for _, c := range line.Commands {
		if len(c.Args) == 0 || !c.Args[0].Literal {
			continue // a computed program name runs nothing under the grant
		}
		v := understand(c)
		for _, prog := range []ShellWord{c.Args[0], firstOr(v.match.Args)} {
			if prog.Literal && prog.Value != "" && !shellBuiltins[prog.Value] {
				g.Exec = appendNew(g.Exec, prog.Value)
			}
		}
		for _, w := range v.writes {
			addWrite(w)
		}
		for _, a := range addsFor(values(v.match.Args)) {
			if !slices.ContainsFunc(g.Adds, func(x GrantAdd) bool { return x.Command == a.Command && x.Label == a.Label }) {
				g.Adds = append(g.Adds, a)
			}
		}
		g.Net = append(g.Net, netOf(v)...)
	}
	for _, w := range line.Writes {
		addWrite(w)
	}
	g.DenyRead, g.Unenforced = d.deniedReads(op.Home)
	return g
}

func firstOr(ws []ShellWord) ShellWord {
	if len(ws) == 0 {
		return ShellWord{}
	}
	return ws[0]
}

func appendNew(l []string, s string) []string {
	if slices.Contains(l, s) {
		return l
	}
	return append(l, s)
}

// deniedReads are the paths the deny rules for reading files name, as
// the kernel can be told them: a path, or a directory's contents (DIR/*);
// any other pattern is kept as unenforced.
func (d Decider) deniedReads(home string) (paths, unenforced []string) {
	for _, r := range d.Rules {
		if r.Effect != EffectDeny || r.Resource == "" || (r.OpType != OpFileRead && r.OpType != "") {
			continue
		}
		p := r.Resource
		if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
			if r.OpType == OpFileRead {
				unenforced = append(unenforced, r.Name+" ("+p+")")
			}
			continue // a command pattern
		}
		for _, suffix := range []string{"/**", "/*"} {
			p = strings.TrimSuffix(p, suffix)
		}
		fp := normalisePath(p, true, home)
		if strings.ContainsAny(fp.value, "*?") || fp.homeUnknown {
			unenforced = append(unenforced, r.Name+" ("+r.Resource+")")
			continue
		}
		paths = appendNew(paths, fp.value)
	}
	return paths, unenforced
}

// netOf is where an understood command reaches the network: the URLs
// curl and wget are given (their host and port).
func netOf(v commandView) []string {
	if v.why != "" || len(v.match.Args) == 0 {
		return nil
	}
	base := path.Base(v.match.Args[0].Value)
	if base != "curl" && base != "wget" {
		return nil
	}
	var out []string
	for _, a := range operands(values(v.match.Args[1:])) {
		u, err := url.Parse(a)
		if err != nil || u.Host == "" {
			continue
		}
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		if port != "" {
			out = append(out, net.JoinHostPort(u.Hostname(), port))
		}
	}
	return out
}

// Text is the grant in a sentence a person reads beside the decision:
// "may run git (and git's helpers); may write nothing; no network".
func (g *Grant) Text() string {
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

func orNothing(l []string, none string) string {
	if len(l) == 0 {
		return none
	}
	return strings.Join(l, ", ")
}
