package policy

import (
	"sort"
	"strings"
	"testing"
)

// The argument table is an allow-list: these tests walk every entry of
// it, so a command or subcommand added later is covered without a row.

// tableEntries are the table's entries by the name verdict gives them
// ("git", "git log"), each with the words that reach it.
func tableEntries() map[string]struct {
	e      cmdArgs
	prefix []string
} {
	out := map[string]struct {
		e      cmdArgs
		prefix []string
	}{}
	for name, e := range commandArgs {
		out[name] = struct {
			e      cmdArgs
			prefix []string
		}{e, []string{name}}
		for sub, se := range e.Sub {
			out[name+" "+sub] = struct {
				e      cmdArgs
				prefix []string
			}{se, []string{name, sub}}
		}
	}
	return out
}

func sortedNames[V any](m map[string]V) []string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// refusedAnyway reports whether an entry's Check refuses every line (awk,
// ssh, git config …): its options need no modelling.
func refusedAnyway(e cmdArgs) bool {
	if e.Check == nil {
		return false
	}
	why, _ := e.Check([]string{"x"})
	why2, _ := e.Check(nil)
	return why != "" && why2 != ""
}

// baseArgs are words a line needs for an entry's Check to let it through
// (wget saves only with -O, tar lists with -tf).
var baseArgs = map[string][]string{
	"wget": {"-O", "out", "https://x"}, "tar": {"-tf", "a.tar"}, "sed": {"-n", "p"},
}

// TestEveryEntryRefusesAnUnknownOption: for every command and subcommand
// of the table, a long option and a short one it does not model make the
// part opaque, with a reason a person reads; before or after an operand.
func TestEveryEntryRefusesAnUnknownOption(t *testing.T) {
	entries := tableEntries()
	for _, name := range sortedNames(entries) {
		te := entries[name]
		if te.e.Sub != nil && len(te.prefix) == 1 {
			// a command with subcommands: its own options come before one
			sub := sortedNames(te.e.Sub)[0]
			if refusedAnyway(te.e.Sub[sub]) {
				for _, s := range sortedNames(te.e.Sub) {
					if !refusedAnyway(te.e.Sub[s]) {
						sub = s
						break
					}
				}
			}
			checkRefused(t, name, append(append([]string{}, te.prefix...), "--hitl-frob", sub))
			continue
		}
		if te.e.Literal || refusedAnyway(te.e) {
			continue
		}
		base := append(append([]string{}, te.prefix...), baseArgs[te.prefix[0]]...)
		long := "--hitl-frob"
		if te.e.LongSingleDash {
			long = "-hitlfrob"
		}
		checkRefused(t, name, append(append([]string{}, base...), long))
		if !te.e.OptionsFirst {
			checkRefused(t, name, append(append([]string{}, base...), "operand", long+"=x"))
		}
		if short := unmodelledLetter(name, te.e, te.prefix[0]); short != "" && !te.e.LongSingleDash {
			checkRefused(t, name, append(append([]string{}, base...), short))
			checkRefused(t, name, append(append([]string{}, base...), "-"+firstFlag(name)+short[1:]))
		}
	}
}

// firstFlag is a short flag entry name takes, or "" (so the bundle is
// just the unknown letter).
func firstFlag(name string) string {
	for _, f := range strings.Fields(safeOptions[name]) {
		if len(f) == 2 && f[0] == '-' && f[1] != '-' && safeSpecs[name][f] == flagOption {
			return f[1:]
		}
	}
	return ""
}

// unmodelledLetter is a short option (-X) no list of the entry names.
func unmodelledLetter(name string, e cmdArgs, top string) string {
	for _, c := range "QYKjyzZqxJWgkOBmbGN" {
		opt := "-" + string(c)
		known := false
		if _, ok := e.lookup(name, withinName(e, top, name), opt); ok {
			known = true
		}
		for _, l := range [][]string{e.Code, e.Net, e.Opaque, e.Write} {
			for _, o := range l {
				known = known || strings.HasPrefix(o, opt) && !strings.HasPrefix(o, "--")
			}
		}
		if !known {
			return opt
		}
	}
	return ""
}

func withinName(e cmdArgs, top, name string) string {
	if name != top && commandArgs[top].Anywhere {
		return top
	}
	return ""
}

func checkRefused(t *testing.T, name string, words []string) {
	t.Helper()
	line := strings.Join(words, " ")
	v := understand(mustParseOne(t, line))
	if v.why == "" {
		t.Errorf("%s: %q is understood, yet it has an option the table does not model", name, line)
		return
	}
	if !strings.Contains(v.why, "is not one the policy knows") && !strings.Contains(v.why, "does not know") {
		t.Errorf("%s: %q is opaque for another reason (%s), not for its unknown option", name, line, v.why)
	}
}

// TestEverySafeOptionIsUnderstood: each safe option, spelled as its spec
// says (with a value when it takes one), is read as one the policy knows.
func TestEverySafeOptionIsUnderstood(t *testing.T) {
	entries := tableEntries()
	for _, name := range sortedNames(safeOptions) {
		te, ok := entries[name]
		if !ok {
			continue // TestSafeOptionsNameTableEntries reports it
		}
		for opt, kind := range safeSpecs[name] {
			var words []string
			switch {
			case te.e.Sub != nil:
				// the command's own option, before a subcommand
				words = append([]string{name, opt}, sortedNames(te.e.Sub)[0])
				if kind == valueOption {
					words = []string{name, opt, "v", sortedNames(te.e.Sub)[0]}
				}
			default:
				words = append(append(append([]string{}, te.prefix...), baseArgs[te.prefix[0]]...), opt)
				if kind == valueOption {
					words = append(words, "1")
				}
				if kind == optionalOption {
					words[len(words)-1] = opt + "=1"
					if !strings.HasPrefix(opt, "--") && !te.e.LongSingleDash {
						words[len(words)-1] = opt + "1"
					}
				}
				words = append(words, "operand")
			}
			line := strings.Join(words, " ")
			v := understand(mustParseOne(t, line))
			if strings.Contains(v.why, "is not one the policy knows") {
				t.Errorf("%s: %q: %s", name, line, v.why)
			}
		}
	}
}

// TestSafeOptionsNameTableEntries: the safe lists are keyed by entries of
// the table, spelled as options, and never name an option a Code, Net or
// Opaque list of the same entry names.
func TestSafeOptionsNameTableEntries(t *testing.T) {
	entries := tableEntries()
	for _, name := range sortedNames(safeOptions) {
		te, ok := entries[name]
		if !ok {
			t.Errorf("safeOptions[%q] names no entry of the argument table", name)
			continue
		}
		for _, f := range strings.Fields(safeOptions[name]) {
			opt := strings.TrimSuffix(strings.TrimSuffix(f, "[=]"), "=")
			if !strings.HasPrefix(opt, "-") || opt == "-" || opt == "--" || strings.ContainsAny(opt, "=[]") {
				t.Errorf("safeOptions[%q]: %q is not an option spec", name, f)
			}
			if !te.e.LongSingleDash && !strings.HasPrefix(opt, "--") && len(opt) != 2 {
				t.Errorf("safeOptions[%q]: %q is neither -x nor --long (the entry splits bundles)", name, f)
			}
			for _, l := range [][]string{te.e.Code, te.e.Net, te.e.Opaque, te.e.Write} {
				for _, o := range l {
					if o == opt {
						t.Errorf("safeOptions[%q] lists %s, which the entry lists as running code, reaching the network, writing or opaque", name, opt)
					}
				}
			}
		}
	}
	// every entry whose options matter has a safe list (perhaps empty)
	for _, name := range sortedNames(entries) {
		te := entries[name]
		if _, ok := safeOptions[name]; !ok && !te.e.Literal && !te.e.OwnOptions && !refusedAnyway(te.e) && !withinAnywhere(name) {
			t.Errorf("the argument table's entry %q has no safeOptions list: every option it takes would ask", name)
		}
	}
}

// withinAnywhere reports whether name is a subcommand of a command whose
// own options follow its subcommands (npm test takes npm's options).
func withinAnywhere(name string) bool {
	top, _, ok := strings.Cut(name, " ")
	return ok && commandArgs[top].Anywhere
}
