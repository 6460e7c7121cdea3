package policy

import (
	"path"
	"slices"
	"strings"
)

// Paths as the kernel resolves them. A path a line names is placed in the
// line's working directory (Operation.Cwd, sent by the edge on the agent's
// machine), in every directory a cd of the line may move to; the edge
// resolves each placement's symlinks (Operation.Paths, keyed by the
// placed path before .. is cleaned, so that .. is taken after the links
// as the kernel does) and the stricter of the written and the real
// reading holds. What cannot be placed is never allowed, yet meets the
// friction rules of every reading it has: an alias through /proc
// (/proc/self/root, /proc/PID/cwd, /proc/self/fd, /dev/fd), bash's
// directory stack (~+ ~- ~N), a relative path in a line whose cd the
// policy cannot follow, and one that climbs out (..) of a working
// directory nobody sent.

// lineDirs are the directories a line's relative paths may be read in.
type lineDirs struct {
	// dirs: the working directory, then where each cd moves; none when
	// the working directory is not known and the line stays in it.
	dirs []string
	// why is set when a relative path cannot be placed at all.
	why string
}

// directories follows the line's cd, pushd and popd (l nil: a line that
// runs nothing). A line that is cd DIR && … (CommandLine.LeadingCd) runs
// every other command in DIR, so an absolute DIR is where its paths are
// placed even when nobody sent the working directory.
func directories(l *CommandLine, home, cwd string) lineDirs {
	var ld lineDirs
	if path.IsAbs(cwd) {
		ld.dirs = []string{path.Clean(cwd)}
	}
	var cmds []ShellCommand
	if l != nil {
		cmds = l.Commands
	}
	for i, c := range cmds {
		if len(c.Args) == 0 || !slices.Contains([]string{"cd", "pushd", "popd", "chdir"}, c.Args[0].Value) {
			continue
		}
		var target *ShellWord
		for i := 1; i < len(c.Args); i++ {
			w := c.Args[i]
			if w.Value == "--" && i+1 < len(c.Args) {
				target = &c.Args[i+1]
				break
			}
			if w.Literal && strings.HasPrefix(w.Value, "-") && len(w.Value) > 1 && strings.Trim(w.Value, "-LPe@") == "" {
				continue // -L -P -e -@
			}
			target = &c.Args[i]
			break
		}
		name := c.Args[0].Value
		var to string
		switch {
		case name == "popd" || name == "pushd" && target == nil:
			ld.why = name + " moves along the directory stack"
		case target == nil:
			if !path.IsAbs(home) {
				ld.why = "cd goes to a home directory the policy does not know"
			}
			to = home
		case !target.Literal || target.Value == "-" || strings.HasPrefix(target.Value, "+") || strings.HasPrefix(target.Value, "-"):
			ld.why = name + " " + target.Text + " goes where the policy cannot follow"
		default:
			fp := normalisePath(target.Value, target.Tilde(), home)
			switch {
			case fp.homeUnknown || fp.unplaceable != "" || fp.network:
				ld.why = name + " " + target.Text + " goes where the policy cannot follow"
			case path.IsAbs(fp.value):
				to = fp.value
			case !strings.HasPrefix(target.Value, "./") && !strings.HasPrefix(target.Value, "../") && target.Value != "." && target.Value != "..":
				ld.why = name + " " + target.Text + " may go by CDPATH"
			case len(ld.dirs) == 0:
				ld.why = name + " " + target.Text + " moves from a working directory nobody sent"
			default:
				for _, d := range slices.Clone(ld.dirs) {
					if p := cleanPath(d + "/" + target.Value); !slices.Contains(ld.dirs, p) {
						ld.dirs = append(ld.dirs, p)
					}
				}
			}
		}
		if ld.why != "" {
			return ld
		}
		if to != "" && len(ld.dirs) == 0 && i == 0 && l.LeadingCd {
			ld.dirs = []string{to} // the only directory the line's other commands start in
			continue
		}
		if to != "" && !slices.Contains(ld.dirs, to) {
			if len(ld.dirs) == 0 {
				return lineDirs{why: name + " moves from a working directory nobody sent"}
			}
			ld.dirs = append(ld.dirs, to)
		}
	}
	return ld
}

// reading is one way the policy reads a path word: the cleaned path the
// rules see and the key the edge resolved it under (Operation.Paths).
type reading struct {
	value, key string
}

// place reads a path word in each directory of the line: its readings
// and, when it cannot be placed, why (fp.unplaceable).
func place(value string, tilde bool, home, cwd string, ld lineDirs) (filePath, []reading) {
	fp := normalisePath(value, tilde, home)
	raw := value
	if tilde && strings.HasPrefix(value, "~") && path.IsAbs(home) {
		if user, rest, _ := strings.Cut(value[1:], "/"); user == "" {
			raw = home + "/" + rest
		}
	}
	var rs []reading
	switch {
	case fp.unplaceable != "":
		if user, rest, _ := strings.Cut(value[1:], "/"); (user == "+" || user == "0" || user == "+0") && path.IsAbs(cwd) {
			fp.candidates = append(fp.candidates, cleanPath(cwd+"/"+rest)) // ~+ is $PWD where the line starts
		}
		return fp, nil
	case fp.homeUnknown || fp.network || fp.value == "":
		return fp, nil
	case path.IsAbs(fp.value):
		rs = append(rs, reading{fp.value, raw})
	case ld.why != "":
		fp.unplaceable = ld.why + ", so the relative path " + value + " cannot be placed"
		return fp, nil
	case len(ld.dirs) == 0:
		if fp.value == ".." || strings.HasPrefix(fp.value, "../") {
			fp.unplaceable = value + " climbs out of a working directory nobody sent"
		}
		return fp, nil
	default:
		for _, d := range ld.dirs {
			k := strings.TrimSuffix(d, "/") + "/" + raw
			rs = append(rs, reading{cleanPath(k), k})
		}
		fp.value = rs[0].value
	}
	for _, r := range rs {
		if procAlias(r.key) || procAlias(r.value) {
			fp.unplaceable = value + " names a file through /proc or /dev/fd, an alias the policy cannot place"
		}
	}
	return fp, rs
}

// procAlias reports whether p goes through /proc/PID/{root,cwd,fd,…} (of
// the process itself, a thread or any process) or /dev/fd: another name
// for any file, which no rule about that file would see.
func procAlias(p string) bool {
	var comps []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			comps = append(comps, c)
		}
	}
	for i := 0; i+2 < len(comps); i++ {
		if comps[i] == "proc" && (comps[i+1] == "self" || comps[i+1] == "thread-self" || digits(comps[i+1])) &&
			slices.Contains([]string{"root", "cwd", "fd", "task", "map_files", "exe"}, comps[i+2]) {
			return true
		}
	}
	c := cleanPath(p)
	return (c == "/dev/fd" || strings.HasPrefix(c, "/dev/fd/")) && !slices.Contains(terminalFiles, c)
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// PathKeys are the paths a line's parts name, placed in the line's working
// directory and its cd's, before .. is cleaned: what an edge on the
// agent's machine resolves (symlinks, then ..) and sends back as
// Operation.Paths, each key to where it leads.
func (l *CommandLine) PathKeys(home, cwd string) []string {
	ld := directories(l, home, cwd)
	var out []string
	add := func(w ShellWord, value string) {
		if !w.Literal {
			return
		}
		_, rs := place(value, w.Tilde(), home, cwd, ld)
		for _, r := range rs {
			if !slices.Contains(out, r.key) {
				out = append(out, r.key)
			}
		}
	}
	for _, c := range l.Commands {
		v := understand(c)
		for _, w := range v.writes {
			add(w, w.Value)
		}
		for _, w := range operandWords(v.match) {
			add(w, operandWord(w.Value))
		}
	}
	for _, ws := range [][]ShellWord{l.Writes, l.Reads} {
		for _, w := range ws {
			add(w, w.Value)
		}
	}
	return out
}

// globUnder reports whether pattern can match a path beneath dir: a
// recursive read of dir reads it. While the pattern meets dir's own
// names, a wildcard stays within one name (/home/*/.ssh/* is beneath ~
// and ~/.ssh, not ~/proj); a pattern that starts with * is beneath every
// directory.
func globUnder(pattern, dir string) bool {
	if GlobMatch(pattern, dir) {
		return true
	}
	p := []rune(pattern)
	if len(p) > 0 && p[0] == '*' {
		return true
	}
	prefix := []rune(strings.TrimSuffix(dir, "/") + "/")
	closure := func(set map[int]bool) map[int]bool {
		for changed := true; changed; {
			changed = false
			for i := range set {
				if i < len(p) && p[i] == '*' && !set[i+1] {
					set[i+1], changed = true, true
				}
			}
		}
		return set
	}
	set := closure(map[int]bool{0: true})
	for _, ch := range prefix {
		nextSet := map[int]bool{}
		for i := range set {
			if i >= len(p) {
				continue
			}
			switch {
			case p[i] == '*':
				if ch != '/' {
					nextSet[i] = true
				}
			case p[i] == '?' && ch != '/', p[i] == ch:
				nextSet[i+1] = true
			}
		}
		set = closure(nextSet)
		if len(set) == 0 {
			return false
		}
	}
	return true
}
