package bashdiff

import (
	_ "embed"
	"math/rand"
	"strconv"
	"strings"
)

// The byte-level generator: a line from the grammar (Generate) or the
// seed corpus (testdata/corpus.txt: the attack classes and real
// agent lines) with a few mutations, each a place where bash's reading
// and the policy parser's may part: backslash-newline anywhere, comments,
// every quoting form, tildes, globs, .. // /proc/self paths, carriage
// returns, control bytes and bytes that are not UTF-8.

//go:embed testdata/corpus.txt
var seedFile string

// Seeds are the seed corpus's lines.
var Seeds = func() []string {
	var out []string
	for _, l := range strings.Split(seedFile, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		s, err := strconv.Unquote(l)
		if err != nil {
			panic("bashdiff: testdata/corpus.txt: " + l + ": " + err.Error())
		}
		out = append(out, s)
	}
	return out
}()

var inserts = []string{
	"\\\n", " \\\n", " \\\n  ", "\\\n ", " # c", " # \\\n", "#", "\n# c\n", "\r", "\x01", "\x1b", "\xff", "\t", "$", "$'", "$\"",
	"'", "\"", "\\", "~", "*", "?", "[", "{a,b}", "..", "//", "/proc/self/cwd/", ";", " && ", " | ", "<<E\nx\nE\n", "<<< x", "\\\n#",
}

// words never lead outside the box (no ~root: a recursive read of the
// machine's /root would not finish).
var words = []string{
	"~", "~/f", "~/.ssh/id_rsa", "~0", "~+", "~-1", "~+/f", "~-", "'f'", "\"f\"", "$'f'", "$\"f\"", "f\\\n", "\\f",
	"../f", "./f", ".//f", "/proc/self/cwd/f", "/proc/self/root/etc/hostname", "@H/.ssh/id_rsa", "../.ssh/id_rsa", "..//.ssh/id_rsa", ".//../.ssh/id_rsa", "link-to-key", "keys", "keys/id_rsa", "keys/", "src/../f",
	"/proc/self/cwd/../.ssh/id_rsa", "/proc/thread-self/root@H/.ssh/id_rsa", "/dev/fd/0", "~0/../.ssh/id_rsa", "~+/link-to-key", "-la", "--", "*",
	"src/*.go", "s?c", "[f]", "f#x", "#f", "$'\\x66'", "f\\\nx",
}

// Mutate returns line with 1 to 3 mutations.
func Mutate(r *rand.Rand, line string) string {
	for n := 1 + r.Intn(3); n > 0; n-- {
		switch r.Intn(4) {
		case 0, 1: // insert bytes at any position
			i := r.Intn(len(line) + 1)
			line = line[:i] + inserts[r.Intn(len(inserts))] + line[i:]
		case 2: // a word replaced, or added
			f := strings.Split(line, " ")
			i := r.Intn(len(f))
			if i == 0 || r.Intn(2) == 0 {
				f = append(f, words[r.Intn(len(words))])
			} else {
				f[i] = words[r.Intn(len(words))]
			}
			line = strings.Join(f, " ")
		default: // two lines joined by a newline or a continuation
			other := Seeds[r.Intn(len(Seeds))]
			line += []string{"\n", " \\\n", "; ", " # "}[r.Intn(4)] + other
		}
	}
	return line
}

// GenerateBytes writes one line for the byte-level fuzzer: a seed or a
// grammar line, mutated.
func GenerateBytes(r *rand.Rand) string {
	base := Generate(r)
	if r.Intn(2) == 0 {
		base = Seeds[r.Intn(len(Seeds))]
	}
	return Mutate(r, base)
}
