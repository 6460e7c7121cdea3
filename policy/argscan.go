package policy

import "strings"

// Reading a command's words as it reads them, to find an option the
// argument table does not model. An option is modelled when it is in one
// of the entry's lists: Code, Net, Opaque, Write, Globals, or its safe
// options (safeOptions, by "command" or "command subcommand"). A safe
// option is written as it is spelled: "-l" takes no value, "-n=" takes
// one (the rest of a short bundle, after = or the next word), "-w[=]"
// takes one only stuck to it (-w80, --color=auto). A long option is
// understood only spelled in full: an abbreviation (--out for --output)
// is not one the policy knows.

// optionKind is how an option takes its value.
type optionKind int

const (
	flagOption     optionKind = iota // takes no value
	valueOption                      // takes a value: stuck to it, after =, or the next word
	optionalOption                   // takes a value only stuck to it or after =
)

// safeSpecs are the safe options of each entry, parsed.
var safeSpecs = parseSafeOptions(safeOptions)

func parseSafeOptions(table map[string]string) map[string]map[string]optionKind {
	out := map[string]map[string]optionKind{}
	for name, opts := range table {
		out[name] = parseSpecs(opts)
	}
	return out
}

func parseSpecs(opts string) map[string]optionKind {
	specs := map[string]optionKind{}
	for _, f := range strings.Fields(opts) {
		switch {
		case strings.HasSuffix(f, "[=]"):
			specs[strings.TrimSuffix(f, "[=]")] = optionalOption
		case strings.HasSuffix(f, "="):
			specs[strings.TrimSuffix(f, "=")] = valueOption
		default:
			specs[f] = flagOption
		}
	}
	return specs
}

// lookup says how entry a (named name, within outer) takes option opt,
// or false when it does not model it.
func (a cmdArgs) lookup(name, outer, opt string) (optionKind, bool) {
	for _, n := range []string{name, outer} {
		if n == "" {
			continue
		}
		if k, ok := safeSpecs[n][opt]; ok {
			return k, true
		}
	}
	lists := [][]string{a.Globals, a.Write}
	if outer != "" {
		o := commandArgs[outer]
		lists = append(lists, o.Globals, o.Write)
	}
	for _, l := range lists {
		for _, o := range l {
			if o == opt {
				return valueOption, true
			}
		}
	}
	return 0, false
}

// unknownOption is the reason a person reads for an option the table
// does not model.
func unknownOption(name, opt string) string {
	return name + ": option " + opt + " is not one the policy knows; ask"
}

// scan reads args as command name reads them, up to -- (or, with
// stopAtOperand, the first operand), and returns where it stopped and why
// an option there is not understood ("" when every one is modelled).
func (a cmdArgs) scan(name string, args []string, stopAtOperand bool, outer string) (end int, unknown string) {
	i := 0
	if a.OldStyle && len(args) > 0 && args[0] != "" && !strings.HasPrefix(args[0], "-") {
		// tar tvf a.tar: each letter an option, the values the words after
		values := 0
		for _, c := range args[0] {
			k, ok := a.lookup(name, outer, "-"+string(c))
			if !ok {
				return 0, unknownOption(name, "-"+string(c))
			}
			if k == valueOption {
				values++
			}
		}
		i = 1 + values
	}
	for ; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "--":
			return i, ""
		case !strings.HasPrefix(w, "-") || w == "-":
			if stopAtOperand {
				return i, ""
			}
			continue
		case a.Numeric && allDigits(w[1:]):
			continue
		case a.LongSingleDash:
			// -name, --name, -name=value: one option, never a bundle
			opt, _, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(w, "-"), "-"), "=")
			k, ok := a.lookup(name, outer, "-"+opt)
			if !ok {
				return i, unknownOption(name, w)
			}
			if k == valueOption && !hasValue {
				i++
			}
		case strings.HasPrefix(w, "--"):
			opt, _, hasValue := strings.Cut(w, "=")
			k, ok := a.lookup(name, outer, opt)
			if !ok || k == flagOption && hasValue {
				return i, unknownOption(name, w)
			}
			if k == valueOption && !hasValue {
				i++
			}
		default:
			// a bundle of short options: -la, -n5, -sSo out
			for j := 1; j < len(w); j++ {
				opt := "-" + w[j:j+1]
				k, ok := a.lookup(name, outer, opt)
				if !ok {
					if j == 1 {
						return i, unknownOption(name, w)
					}
					return i, unknownOption(name, opt+" (in "+w+")")
				}
				if k == flagOption {
					continue
				}
				if k == valueOption && j == len(w)-1 {
					i++ // its value is the next word
				}
				break
			}
		}
	}
	return len(args), ""
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
