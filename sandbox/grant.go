package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/hitlbot/hitl"
)

// Args are `hitl sandbox`'s flags for grant g, on this machine: the
// places its additions name ({gitdir}, {gocache}…) found from dir (the
// command's working directory) and the environment; a place that is not
// there is left out (nothing is granted for it).
func Args(g *hitl.CommandGrant, dir string, getenv func(string) string) []string {
	var out []string
	add := func(flag string, vals ...string) {
		for _, v := range vals {
			for _, p := range place(v, dir, getenv) {
				if flag == "exec" && !runnable(p, dir, getenv("PATH")) {
					continue // a program that is not here runs nothing
				}
				out = append(out, "--"+flag, p)
			}
		}
	}
	if g == nil {
		return nil
	}
	add("exec", g.Exec...)
	for _, w := range g.Write {
		if filepath.IsAbs(w) || exists(filepath.Dir(filepath.Join(dir, w))) {
			add("write", w)
		}
	}
	add("deny-read", g.DenyRead...)
	add("net", g.Net...)
	for _, a := range g.Adds {
		add("exec", a.Exec...)
		add("write", a.Write...)
		add("net", a.Net...)
	}
	return dedupe(out)
}

// place resolves one grant value: a {place} to the paths it is here
// (none when it is not); any other value as it is.
func place(v, dir string, getenv func(string) string) []string {
	i := strings.Index(v, "{")
	j := strings.Index(v, "}")
	if i != 0 || j < 0 {
		return []string{v}
	}
	name, rest := v[1:j], v[j+1:]
	var found []string
	switch name {
	case "gitexec":
		found = existing("/usr/lib/git-core", "/usr/libexec/git-core", "/usr/local/libexec/git-core")
	case "gitdir", "worktree":
		if top := repoRoot(dir); top != "" {
			found = []string{top}
			if name == "gitdir" {
				found = []string{gitDir(top)}
			}
		}
	case "gotool":
		if gobin, err := lookPath("go", getenv("PATH")); err == nil {
			found = existing(filepath.Join(filepath.Dir(filepath.Dir(gobin)), "pkg", "tool"))
		}
	case "gocache":
		c := getenv("GOCACHE")
		if c == "" {
			if base, err := os.UserCacheDir(); err == nil {
				c = filepath.Join(base, "go-build")
			}
		}
		found = existing(c)
	case "tmp":
		t := getenv("TMPDIR")
		if t == "" {
			t = "/tmp"
		}
		found = existing(t)
	case "npmcache":
		if h := getenv("HOME"); h != "" {
			found = existing(filepath.Join(h, ".npm"))
		}
	case "scripts":
		found = scriptPrograms(dir)
	}
	var out []string
	for _, f := range found {
		if rest == "" || exists(f+rest) {
			out = append(out, f+rest)
		}
	}
	return out
}

// repoRoot is the working tree holding dir ("" outside one).
func repoRoot(dir string) string {
	for at := dir; ; at = filepath.Dir(at) {
		if exists(filepath.Join(at, ".git")) {
			return at
		}
		if at == "/" || at == "." {
			return ""
		}
	}
}

// gitDir is top's .git directory (a worktree's .git file names it).
func gitDir(top string) string {
	p := filepath.Join(top, ".git")
	if b, err := os.ReadFile(p); err == nil {
		if d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
			if !filepath.IsAbs(d) {
				d = filepath.Join(top, d)
			}
			return d
		}
	}
	return p
}

// scriptPrograms are the programs the Makefile's recipes and
// package.json's scripts in dir name: each command's first word.
func scriptPrograms(dir string) []string {
	var lines []string
	if b, err := os.ReadFile(filepath.Join(dir, "Makefile")); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "\t") {
				lines = append(lines, strings.TrimLeft(strings.TrimSpace(l), "@-+"))
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
		var pkg struct {
			Scripts map[string]string `json:"scripts"`
		}
		if json.Unmarshal(b, &pkg) == nil {
			for _, s := range pkg.Scripts {
				lines = append(lines, s)
			}
		}
	}
	var out []string
	for _, l := range lines {
		for _, cmd := range strings.FieldsFunc(l, func(r rune) bool { return strings.ContainsRune(";&|()", r) }) {
			f := strings.Fields(cmd)
			for len(f) > 0 && strings.Contains(f[0], "=") {
				f = f[1:] // VAR=value cmd
			}
			if len(f) > 0 && !strings.ContainsAny(f[0], "$`\"'") {
				out = append(out, f[0])
			}
		}
	}
	return dedupeStrings(out)
}

// runnable reports whether prog is a program (or directory of them) here.
func runnable(prog, dir, path string) bool {
	if strings.Contains(prog, "/") && !filepath.IsAbs(prog) {
		prog = filepath.Join(dir, prog)
	}
	_, err := Resolve(prog, path)
	return err == nil
}

func existing(paths ...string) []string {
	var out []string
	for _, p := range paths {
		if p != "" && exists(p) {
			out = append(out, p)
		}
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func dedupeStrings(l []string) []string {
	var out []string
	for _, s := range l {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// dedupe drops a repeated flag and value pair.
func dedupe(args []string) []string {
	seen := map[string]bool{}
	var out []string
	for i := 0; i+1 < len(args); i += 2 {
		k := args[i] + "\x00" + args[i+1]
		if !seen[k] {
			seen[k] = true
			out = append(out, args[i], args[i+1])
		}
	}
	return out
}
