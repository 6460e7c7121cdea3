package policy

import (
	"sort"
	"strings"
)

// SafeOptionLines are lines that use each safe option of the named table
// entries once (with the value "1" when it takes one), for the
// differential test to run under bash: a safe option must never run a
// program or write a file.
func SafeOptionLines(names ...string) []string {
	var out []string
	for _, name := range names {
		prefix, suffix := name, " f"
		switch name {
		case "find":
			prefix, suffix = "find .", ""
		case "tar":
			prefix, suffix = "tar -tf a.tar", ""
		case "git log", "git diff", "git show", "git status":
			suffix = " -- f"
		case "diff", "cmp", "comm":
			suffix = " f src/a.go" // two files that differ, so diff prints
		}
		var opts []string
		for opt := range safeSpecs[name] {
			opts = append(opts, opt)
		}
		sort.Strings(opts)
		e := commandArgs[strings.Fields(name)[0]]
		if _, sub, ok := strings.Cut(name, " "); ok {
			e = e.Sub[sub]
		}
		for _, opt := range opts {
			w := opt
			switch safeSpecs[name][opt] {
			case valueOption:
				w += " 1"
			case optionalOption:
				if strings.HasPrefix(opt, "--") || e.LongSingleDash {
					w += "=1"
				} else {
					w += "1"
				}
			}
			out = append(out, prefix+" "+w+suffix)
		}
	}
	return out
}

// GrantAddRows is how many rows grantAdds has.
func GrantAddRows() int { return len(grantAdds) }
