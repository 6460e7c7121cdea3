package policy

import (
	"net"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
)

// A decision is a grant: what a shell line's visible parts name is all it
// may do when it runs. The programs its commands name (and the helpers
// the tools of grantadds.go are documented to run), the files its parts
// write, no reading of what deny rules protect, no network unless a part
// reaches it. Where hitl sees the command run (hitl gate, the hooks with
// enforce: kernel) the kernel holds it to the grant (package sandbox),
// so that a hidden part the decider missed still cannot act.

// shellBuiltins run inside the shell itself: no program is executed.
var shellBuiltins = set("cd", "echo", "printf", "test", "[", "true", "false", "pwd", ":", "type", "command", "kill")

// GrantFor is the grant of op, a shell line: nil for any other operation
// or a line that does not parse (then nothing runs under a grant).
func (d Decider) GrantFor(op hitl.Operation) *hitl.CommandGrant {
	if op.Type != hitl.OpShell || d.Parse == nil {
		return nil
	}
	line, err := d.Parse(op.Resource)
	if err != nil {
		return nil
	}
	g := &hitl.CommandGrant{Exec: []string{}, Write: []string{}}
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
			if !slices.ContainsFunc(g.Adds, func(x hitl.GrantAdd) bool { return x.Command == a.Command && x.Label == a.Label }) {
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
		if r.Effect != hitl.EffectDeny || r.Resource == "" || (r.OpType != hitl.OpFileRead && r.OpType != "") {
			continue
		}
		p := r.Resource
		if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
			if r.OpType == hitl.OpFileRead {
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
