package policy

import "strings"

// sed's options and scripts: sed runs a script that can run commands (e,
// s///e), write files (w, W, s///w) and read them (r, R). A script is
// understood only when every command in it is one that prints, deletes
// or substitutes; -i writes its file operands.

// sedCheck is the argument table's check for sed.
func sedCheck(args []string) (string, []string) {
	var scripts, files []string
	inPlace := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case a == "-" || !strings.HasPrefix(a, "-"):
			files = append(files, a)
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			switch {
			case name == "":
				return "sed " + a + " is an option the policy does not know", nil
			case strings.HasPrefix("expression", name):
				if !hasValue {
					i++
					value = next(args, i-1)
				}
				scripts = append(scripts, value)
			case strings.HasPrefix("in-place", name):
				if hasValue && value != "" {
					return "sed " + a + " writes a backup copy where its suffix says", nil
				}
				inPlace = true
			case strings.HasPrefix("file", name):
				return "sed --file runs a script from a file", nil
			case strings.HasPrefix("line-length", name) && len(name) > 1:
				if !hasValue {
					i++
				}
			case anyPrefix(name, "quiet", "silent", "regexp-extended", "separate", "unbuffered", "null-data", "posix", "debug", "sandbox", "follow-symlinks", "zero-terminated"):
			default:
				return "sed " + a + " is an option the policy does not know", nil
			}
		default:
			for j := 1; j < len(a); j++ {
				switch c := a[j]; c {
				case 'n', 'E', 'r', 's', 'u', 'z':
				case 'i':
					if a[j+1:] != "" {
						return "sed " + a + " writes a backup copy where its suffix says", nil
					}
					inPlace, j = true, len(a) // -i[SUFFIX]
				case 'e', 'l':
					v := a[j+1:]
					if v == "" {
						i++
						v = next(args, i-1)
					}
					if c == 'e' {
						scripts = append(scripts, v)
					}
					j = len(a)
				case 'f':
					return "sed -f runs a script from a file", nil
				default:
					return "sed -" + string(c) + " is an option the policy does not know", nil
				}
			}
		}
	}
	if len(scripts) == 0 {
		if len(files) == 0 {
			return "sed has no script", nil
		}
		scripts, files = files[:1], files[1:]
	}
	for _, s := range scripts {
		if why := sedScript(s); why != "" {
			return "sed script " + quoteForReason(s) + ": " + why, nil
		}
	}
	if inPlace {
		return "", files
	}
	return "", nil
}

func anyPrefix(name string, longs ...string) bool {
	for _, l := range longs {
		if strings.HasPrefix(l, name) {
			return true
		}
	}
	return false
}

func quoteForReason(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return "`" + s + "`"
}

// sedScript says why a sed script is not understood, or "": it is a
// sequence of commands that only print, delete, quit, substitute
// (without the e and w flags) or transliterate, with line-number, $ or
// /regex/ addresses.
func sedScript(s string) string {
	i := 0
	skip := func() {
		for i < len(s) && strings.IndexByte(" \t\n;{}", s[i]) >= 0 {
			i++
		}
	}
	// delimited reads up to the unescaped delimiter d.
	delimited := func(d byte) bool {
		for i < len(s) {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case '\n':
				return false
			case d:
				i++
				return true
			}
			i++
		}
		return false
	}
	address := func() bool {
		switch {
		case i < len(s) && s[i] == '$':
			i++
		case i < len(s) && s[i] >= '0' && s[i] <= '9':
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < len(s) && s[i] == '/':
			i++
			if !delimited('/') {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return true
	}
	for skip(); i < len(s); skip() {
		if !address() {
			return "an address the policy cannot read"
		}
		if i < len(s) && s[i] == ',' {
			i++
			if !address() {
				return "an address the policy cannot read"
			}
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '!') {
			i++
		}
		if i >= len(s) {
			return "an address with no command"
		}
		c := s[i]
		i++
		switch {
		case strings.IndexByte("pdDPnNgGhHxz=lF{}", c) >= 0:
		case c == 'q' || c == 'Q':
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case c == 's' || c == 'y':
			if i >= len(s) || s[i] == '\\' || s[i] == '\n' {
				return "a substitution the policy cannot read"
			}
			d := s[i]
			i++
			if !delimited(d) || !delimited(d) {
				return "a substitution the policy cannot read"
			}
			for c == 's' && i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
				i++
			}
			if i < len(s) && strings.IndexByte(" \t\n;}", s[i]) < 0 {
				return "the substitution flag " + string(s[i]) + " runs a command or writes a file"
			}
		default:
			return "the command " + string(c) + " may run a command, write or read a file"
		}
	}
	return ""
}
