package policy_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/hook"
	"github.com/hitlbot/hitl/internal/bashdiff"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/require"
)

// The differential test: each line is decided as an edge on the agent's
// machine sends it (hook.AgentSide with the box's HOME and working
// directory), and wherever hitl allows it, bash (-O extglob, under
// strace -f -y, in a box laid out as an agent's machine, stub programs
// first on PATH) executes only programs of parts hitl showed and allowed,
// with their arguments; opens for reading no file (as the kernel resolved
// it) a friction rule covers; writes only files of write parts hitl
// allowed; connects nowhere. A mismatch prints the line and the trace.

// diffRules are benign read-only allow rules, as a team writes them
// (including builtins a person might allow without knowing what they
// evaluate), and one directory lines may write in.
func diffRules(b bashdiff.Box) []hitl.Rule {
	var rules []hitl.Rule
	for _, c := range []string{"git status", "git log", "ls", "cat", "head", "tail", "grep", "sed", "echo", "printf", "wc", "sort",
		"tee", "tar -tf", "tar tvf", "tar -xf", "find", "env", "pwd", "test", "[", "true", "diff", "make test", "go test", "rg", "jq",
		"which", "read", "mapfile", "let", "unset", "declare", "export", "eval", "command", "hash", "awk", "xargs", "alias", "trap",
		"source", ".", "builtin", "enable", "cd", "set", "shopt", "getopts", "wait", "/bin/ls", "curl", "wget", "git -c", "git -p"} {
		rules = append(rules, hitl.Rule{Name: "allow " + c, OpType: hitl.OpShell, Resource: c, Effect: hitl.EffectAllow})
	}
	return append(rules,
		hitl.Rule{Name: "writes in w", OpType: hitl.OpFileWrite, Resource: b.Dir + "/w/*", Effect: hitl.EffectAllow},
		hitl.Rule{Name: "no keys", OpType: hitl.OpFileRead, Resource: "/home/*/.ssh/*", Effect: hitl.EffectDeny},
		hitl.Rule{Name: "no keys in the box", OpType: hitl.OpFileRead, Resource: b.Home + "/.ssh/*", Effect: hitl.EffectDeny})
}

// differ runs lines through the decider and, where it allows, bash.
type differ struct {
	t       testing.TB
	parent  string
	mu      sync.Mutex
	ran     int
	allowed []string
	errs    int
	// noCwd decides as an edge that does not send the working directory
	// (bash still runs in the box's): the unplaced rules and the
	// cd DIR && … placement are then what stands between a line and the
	// key.
	noCwd bool
}

func (df *differ) mismatches() int {
	df.mu.Lock()
	defer df.mu.Unlock()
	return df.errs
}

func newDiffer(t testing.TB) *differ {
	t.Helper()
	if err := bashdiff.Available(); err != nil {
		t.Skipf("the differential test against bash needs bash and strace: %v", err)
	}
	return &differ{t: t, parent: t.TempDir()}
}

// check decides line (with the box's paths put in) as an edge on the
// agent's machine would send it (hook.AgentSide: the box's HOME and
// working directory, the symlinks of the files it names resolved, git's
// configuration, the files it runs hashed) and, when it is allowed, runs
// it and compares. It returns an error describing a mismatch.
func (df *differ) check(box bashdiff.Box, template string) error {
	line := box.Expand(template)
	d := policy.Decider{Rules: diffRules(box), Parse: shell.Parse, Now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	cwd := box.Dir
	if df.noCwd {
		cwd = ""
	}
	op := hook.AgentSide(hitl.Operation{Type: hitl.OpShell, Description: "run", Resource: line, Agent: "api:ci"}, box.Home, cwd)
	dec, err := d.Decide(op)
	if err != nil {
		return err
	}
	if dec.Effect != hitl.EffectAllow {
		return nil
	}
	if strings.IndexByte(line, 0) >= 0 {
		return fmt.Errorf("hitl allowed %q, which holds a NUL byte bash cannot be given (parts %+v)", line, dec.Parts)
	}
	df.mu.Lock()
	df.ran++
	df.allowed = append(df.allowed, template)
	df.mu.Unlock()
	progs, writes, argvs := allowedByParts(dec.Parts, box, line)
	tr, err := bashdiff.Run(context.Background(), box, line)
	if err != nil {
		return fmt.Errorf("%q: %v", line, err)
	}
	var bad []string
	gitAllowed := progs["git"] > 0
	shown := maps.Clone(progs)
	for i, path := range tr.Execs {
		e := filepath.Base(path)
		if owner, ok := toolchainOf(path); ok && progs[owner] > 0 {
			continue // an allowed program running its own toolchain
		}
		if helperOfAllowed(e, shown) {
			continue // tar -z running gzip
		}
		if progs[e] <= 0 {
			bad = append(bad, "executed "+path)
			continue
		}
		progs[e]--
		if i < len(tr.Args) && !slices.ContainsFunc(argvs[e], func(a []string) bool { return slices.Equal(a, tr.Args[i]) }) {
			bad = append(bad, fmt.Sprintf("executed %s with arguments %q, which no allowed part shows (%q)", e, tr.Args[i], argvs[e]))
		}
	}
	// every file opened for reading, as the kernel resolved it, is one
	// no rule adds friction to (the test's rules allow reading the rest)
	for _, r := range tr.Reads {
		if rule := frictionOn(d.Rules, hitl.OpFileRead, r); rule != "" {
			bad = append(bad, "read "+r+", which rule "+rule+" covers")
		}
	}
	for _, c := range tr.Connects {
		if progs["curl"] == 0 && progs["wget"] == 0 && !slices.Contains(values(dec.Parts), "curl") {
			bad = append(bad, "connected: "+c)
		}
	}
	for _, w := range tr.Writes {
		if slices.Contains([]string{"/dev/null", "/dev/tty"}, w) || strings.HasPrefix(w, box.Tmp+"/") || strings.HasPrefix(w, "/proc/") {
			continue
		}
		if strings.HasPrefix(w, box.Dir+"/.git/") && gitAllowed {
			continue // git keeps its own index and objects
		}
		if !writes[w] {
			bad = append(bad, "wrote "+w+" (no allowed part writes it)")
			continue
		}
		// the file really written must itself be one the rules allow
		fd, err := d.Decide(hitl.Operation{Type: hitl.OpFileWrite, Description: "write", Resource: w, Agent: "api:ci", Home: box.Home})
		if err != nil || fd.Effect != hitl.EffectAllow {
			bad = append(bad, "wrote "+w+", which the write rules do not allow")
		}
	}
	if len(bad) > 0 && tr.Unfinished != "" {
		bad = append(bad, "("+tr.Unfinished+": what it did until it was killed)")
	}
	if len(bad) > 0 {
		return fmt.Errorf("hitl allowed %q (bytes % x)\nparts %+v\nbut bash %s\ntrace: execs %q args %q reads %q writes %q stubs %q\noutput: %s",
			line, []byte(line), dec.Parts, strings.Join(bad, ", "), tr.Execs, tr.Args, boxReads(tr.Reads, box), tr.Writes, tr.Stubbed, tr.Output)
	}
	return nil
}

// frictionOn names the first rule that adds friction (deny, approvers,
// quorum, ask) to an operation of type t on the file p, or "".
func frictionOn(rules []hitl.Rule, t hitl.OpType, p string) string {
	for _, r := range rules {
		if r.AddsFriction() && policy.RuleMatches(r, hitl.Operation{Type: t, Resource: p}) {
			return r.Name
		}
	}
	return ""
}

// boxReads are the reads inside the box (what a mismatch message shows).
func boxReads(reads []string, box bashdiff.Box) []string {
	var out []string
	for _, r := range reads {
		if strings.HasPrefix(r, box.Root+"/") {
			out = append(out, r)
		}
	}
	return out
}

// toolchains are where programs keep the programs they run themselves:
// go runs its compiler and itself, and for cgo packages the C compiler
// and what that runs (gcc, cc1, as, ld: a `go test` over every package
// builds runtime/cgo); git runs its helpers. An entry ending in / or -
// is a prefix, any other one path.
var toolchains = map[string][]string{
	"go": {"/usr/local/go/", "/usr/lib/go", "/usr/bin/gcc", "/usr/bin/cc", "/usr/bin/x86_64-linux-gnu-", "/usr/lib/gcc/",
		"/usr/libexec/gcc/", "/usr/bin/as", "/usr/bin/ld", "/usr/bin/ld.bfd", "/usr/bin/ld.gold"},
	"git": {"/usr/lib/git-core/"},
}

func toolchainOf(path string) (string, bool) {
	for prog, entries := range toolchains {
		for _, e := range entries {
			if path == e || (strings.HasSuffix(e, "/") || strings.HasSuffix(e, "-")) && strings.HasPrefix(path, e) {
				return prog, true
			}
		}
	}
	return "", false
}

// helpers are programs an allowed program runs under a fixed name, found
// on a PATH no allowed line can change: tar's decompressors (-z, -j, -J,
// --zstd …). Options that name the program (tar -I, --use-compress-program)
// are opaque.
var helpers = map[string][]string{"tar": {"gzip", "bzip2", "xz", "zstd", "lzip", "lzop", "lzma", "unxz", "gunzip"}}

func helperOfAllowed(prog string, progs map[string]int) bool {
	for owner, hs := range helpers {
		if progs[owner] > 0 && slices.Contains(hs, prog) {
			return true
		}
	}
	return false
}

// allowedByParts are the programs (base names, counted), the files
// (absolute) and each program's arguments (~ put in the box's home) of
// the parts hitl showed and allowed.
func allowedByParts(parts []hitl.DecisionPart, box bashdiff.Box, line string) (map[string]int, map[string]bool, map[string][][]string) {
	progs, writes, argvs := map[string]int{}, map[string]bool{}, map[string][][]string{}
	// each part's words as the line's parse read them (a part's text,
	// quoted for people, may not read back the same)
	words := map[string][]policy.ShellWord{}
	if l, err := shell.Parse(line); err == nil {
		for _, c := range l.Commands {
			words[c.Text()] = c.Args
		}
	}
	argvOf := func(ws []policy.ShellWord) []string {
		out := []string{}
		for _, w := range ws {
			v := w.Value
			if w.Tilde() && (v == "~" || strings.HasPrefix(v, "~/")) {
				v = box.Home + v[1:]
			} else if name, rest, slash := strings.Cut(v, "/"); w.Tilde() && strings.HasPrefix(name, "~") {
				if u, err := user.Lookup(name[1:]); err == nil {
					v = u.HomeDir // bash replaces the tilde-prefix only: ~root// is /root//
					if slash {
						v += "/" + rest
					}
				}
			}
			out = append(out, v)
		}
		return out
	}
	for _, p := range parts {
		if p.Effect != hitl.EffectAllow {
			continue
		}
		switch p.Kind {
		case hitl.PartCommand:
			l, err := shell.Parse(p.Text)
			if err != nil || len(l.Commands) != 1 || len(l.Commands[0].Args) == 0 {
				continue
			}
			args := l.Commands[0].Args
			if ws, ok := words[p.Text]; ok && len(ws) > 0 {
				args = ws
			}
			progs[filepath.Base(args[0].Value)]++
			argvs[filepath.Base(args[0].Value)] = append(argvs[filepath.Base(args[0].Value)], argvOf(args[1:]))
			if filepath.Base(args[0].Value) == "env" && len(args) > 1 {
				progs[filepath.Base(args[1].Value)]++
				argvs[filepath.Base(args[1].Value)] = append(argvs[filepath.Base(args[1].Value)], argvOf(args[2:]))
			}
		case hitl.PartWrite:
			text := p.Text
			if i := strings.LastIndex(text, " ("); i > 0 && strings.HasSuffix(text, ")") {
				text = text[i+2 : len(text)-1]
			} else if l, err := shell.Parse("x " + text); err == nil && len(l.Commands) == 1 && len(l.Commands[0].Args) == 2 {
				text = l.Commands[0].Args[1].Value
			}
			if strings.HasPrefix(text, "~/") {
				text = box.Home + text[1:]
			}
			if !filepath.IsAbs(text) {
				text = filepath.Join(box.Dir, text)
			}
			writes[filepath.Clean(text)] = true
		}
	}
	return progs, writes, argvs
}

// run checks lines on two workers, each with its own box (emptied of
// what the previous line wrote in w).
func (df *differ) run(lines []string) {
	df.t.Helper()
	var wg sync.WaitGroup
	next := make(chan string)
	errs := make(chan error, len(lines))
	for i := 0; i < 2; i++ {
		box, err := bashdiff.NewBox(df.parent)
		if err != nil {
			df.t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for l := range next {
				if err := df.check(box, l); err != nil {
					errs <- err
				}
				box.Reset()
			}
		}()
	}
	for _, l := range lines {
		next <- l
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		df.mu.Lock()
		df.errs++
		df.mu.Unlock()
		df.t.Error(err)
	}
}

// tableLines are the lines of the policy's test tables, with /tmp/ put in
// the box's writable directory.
func tableLines() []string {
	var out []string
	for _, tc := range shellLineCases {
		out = append(out, strings.ReplaceAll(tc.line, "/tmp/", "@W/"))
	}
	for _, l := range everydayLines {
		out = append(out, strings.ReplaceAll(l, "/tmp/", "@W/"))
	}
	out = append(out, bashdiff.Simple...)
	return append(out, bashdiff.Payloads...)
}

func TestBashAgreesWithTheTables(t *testing.T) {
	df := newDiffer(t)
	df.run(tableLines())
	t.Logf("%d table lines allowed and run under strace", df.ran)
	if df.ran < 20 {
		t.Errorf("only %d table lines were allowed: the differential test checks nothing", df.ran)
	}
}

// TestBashAgreesOnEverySafeOption runs each safe option of the table
// entries the test's rules allow (tail's --follow would wait: not run):
// none may run a program or write a file hitl did not show.
func TestBashAgreesOnEverySafeOption(t *testing.T) {
	df := newDiffer(t)
	lines := policy.SafeOptionLines("ls", "cat", "head", "grep", "wc", "sort", "diff", "jq", "find", "tar", "which", "pwd",
		"git status", "git log")
	df.run(lines)
	t.Logf("%d of %d lines with a safe option allowed and run under strace", df.ran, len(lines))
	if df.ran < len(lines)*9/10 {
		t.Errorf("only %d of %d lines with a safe option were allowed", df.ran, len(lines))
	}
}

// TestBashAgreesWithGeneratedLines runs thousands of generated lines (a
// fixed seed; HITL_BASHDIFF_SEED and HITL_BASHDIFF_N change it).
func TestBashAgreesWithGeneratedLines(t *testing.T) {
	df := newDiffer(t)
	seed, n := int64(22), 3000
	if s := os.Getenv("HITL_BASHDIFF_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	if s := os.Getenv("HITL_BASHDIFF_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	if testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewSource(seed))
	lines := make([]string, n)
	for i := range lines {
		lines[i] = bashdiff.Generate(r)
	}
	df.run(lines)
	t.Logf("seed %d: %d of %d generated lines allowed and run under strace", seed, df.ran, n)
	if df.ran < n/20 {
		t.Errorf("only %d generated lines were allowed: the differential test checks little", df.ran)
	}
}

// FuzzBashAgrees is the longer run: go test -fuzz FuzzBashAgrees -run '^$'.
func FuzzBashAgrees(f *testing.F) {
	for _, s := range []int64{1, 2, 3, 22} {
		f.Add(s)
	}
	df := newDiffer(f)
	box, err := bashdiff.NewBox(df.parent)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		line := bashdiff.Generate(rand.New(rand.NewSource(seed)))
		if err := df.check(box, line); err != nil {
			t.Fatal(err)
		}
	})
}

// values are the programs of the allowed command parts (their first word).
func values(parts []hitl.DecisionPart) []string {
	var out []string
	for _, p := range parts {
		if p.Kind == hitl.PartCommand && p.Effect == hitl.EffectAllow {
			out = append(out, strings.Fields(p.Text + " x")[0])
		}
	}
	return out
}

// TestBashAgreesWithMutatedLines is the byte-level fuzzer, bounded: the
// seed corpus (internal/bashdiff/testdata/corpus.txt), then lines from the
// grammar and the corpus with bytes and words mutated, until the budget
// (HITL_BASHDIFF_BUDGET, a Go duration: 20s, 5s with -short) is spent.
// Every line hitl allows runs under strace; any mismatch fails.
func TestBashAgreesWithMutatedLines(t *testing.T) {
	mutatedLines(t, newDiffer(t), 20*time.Second)
}

// TestBashAgreesWithoutAWorkingDirectory is the same fuzzer deciding as an
// edge that sends no working directory (hitl policy check --cwd "",
// an API client): a relative path then may be any file so named, and
// only a line that is cd /abs && … places it. Half the budget.
func TestBashAgreesWithoutAWorkingDirectory(t *testing.T) {
	df := newDiffer(t)
	df.noCwd = true
	mutatedLines(t, df, 10*time.Second)
}

// mutatedLines runs the seed corpus, then mutated lines until the budget
// (HITL_BASHDIFF_BUDGET overrides it; a quarter with -short) is spent.
func mutatedLines(t *testing.T, df *differ, budget time.Duration) {
	t.Helper()
	if testing.Short() {
		budget /= 4
	}
	if s := os.Getenv("HITL_BASHDIFF_BUDGET"); s != "" {
		d, err := time.ParseDuration(s)
		require.NoError(t, err, "HITL_BASHDIFF_BUDGET")
		budget = d
	}
	seed := int64(31)
	if s := os.Getenv("HITL_BASHDIFF_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	seeds := slices.Clone(bashdiff.Seeds)
	df.run(seeds)
	seedsAllowed := df.ran
	r := rand.New(rand.NewSource(seed))
	deadline := time.Now().Add(budget)
	generated := 0
	for time.Now().Before(deadline) {
		lines := make([]string, 50)
		for i := range lines {
			lines[i] = bashdiff.GenerateBytes(r)
		}
		generated += len(lines)
		df.run(lines)
	}
	t.Logf("seed %d, budget %s, no working directory %v: %d seed lines (%d allowed); %d mutated lines generated, %d allowed and run under strace; %d mismatches",
		seed, budget, df.noCwd, len(seeds), seedsAllowed, generated, df.ran-seedsAllowed, df.mismatches())
	if generated > 0 && df.ran == seedsAllowed {
		t.Errorf("no mutated line was allowed: the fuzzer checks nothing")
	}
}

// FuzzBashAgreesBytes is the long byte-level run:
// go test ./policy -run '^$' -fuzz FuzzBashAgreesBytes -fuzztime 1h.
// The fuzzing engine mutates the seed corpus's lines byte by byte.
func FuzzBashAgreesBytes(f *testing.F) {
	for _, s := range bashdiff.Seeds {
		f.Add(s)
	}
	df := newDiffer(f)
	box, err := bashdiff.NewBox(df.parent)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 4096 {
			return
		}
		if err := df.check(box, line); err != nil {
			t.Fatal(err)
		}
		box.Reset()
	})
}
