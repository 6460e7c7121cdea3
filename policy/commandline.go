package policy

// A shell command line as the policy sees it: the simple commands it runs
// and the files its redirections write and read. The parsing is done by a
// real shell parser outside the root (package shell, mvdan.cc/sh); the
// rules about what a line may do without a person live here.

// CommandParser parses a shell command line. An error means the line does
// not parse: the policy then asks a person.
type CommandParser func(line string) (*CommandLine, error)

// CommandLine is a parsed command line.
type CommandLine struct {
	// Commands are every simple command the line runs, in source order:
	// those joined by && || ; | &, inside subshells, blocks, loops and
	// function bodies, and inside command and process substitutions
	// (also those in here-document bodies).
	Commands []ShellCommand
	// Writes are the files a redirection writes (> >> &> >| <> >&FILE),
	// Reads the files one reads (<). Targets that are not literal are
	// kept as their source text with Literal false.
	Writes []ShellWord
	Reads  []ShellWord
	// Opaque lists every node of the line's syntax tree whose effect
	// the policy does not model completely (arithmetic, [[ ]], loops,
	// function definitions, expansions with operators, extglob, any node
	// kind the parser adds later…): the line is never allowed by a rule
	// and never learnable; a person sees it as "not understood".
	Opaque []ShellOpaque
	// LeadingCd: the line is one list cd DIR && … && …, so that every
	// command after the cd (its first command) runs only once the cd
	// succeeded: DIR is where they start. Not with || or ; or ! on the
	// way, nor with assignments or redirections on the cd.
	LeadingCd bool
}

// ShellOpaque is one node the policy does not understand: its source
// text and what kind of node it is, in words a person reads.
type ShellOpaque struct {
	Text string
	What string
}

// ShellCommand is one simple command: its assignments (FOO=bar) and words.
type ShellCommand struct {
	Assigns []ShellWord
	Args    []ShellWord
}

// ShellWord is one word. Value is the word after quote removal when it is
// Literal (the same whenever it runs); otherwise Value is its source text
// ($VAR, $(…), globs, braces: computed when it runs). Text is the word as
// written back in one canonical form (quoted where needed).
type ShellWord struct {
	Value   string
	Text    string
	Literal bool
}

// Tilde reports whether w starts with an unquoted ~ or ~user, which the
// shell replaces with a home directory.
func (w ShellWord) Tilde() bool {
	return w.Literal && len(w.Text) > 0 && w.Text[0] == '~'
}

// Text is the command as one canonical line: assignments and words in
// their canonical form, joined by single spaces. Rules and learned rules
// match this.
func (c ShellCommand) Text() string {
	n := 0
	for _, w := range c.Assigns {
		n += len(w.Text) + 1
	}
	for _, w := range c.Args {
		n += len(w.Text) + 1
	}
	b := make([]byte, 0, n)
	for _, ws := range [][]ShellWord{c.Assigns, c.Args} {
		for _, w := range ws {
			if len(b) > 0 {
				b = append(b, ' ')
			}
			b = append(b, w.Text...)
		}
	}
	return string(b)
}

// Dynamic reports whether part of c is computed when it runs.
func (c ShellCommand) Dynamic() bool {
	for _, ws := range [][]ShellWord{c.Assigns, c.Args} {
		for _, w := range ws {
			if !w.Literal {
				return true
			}
		}
	}
	return false
}

// Files are the paths a line's parts name as files, as the policy reads
// them (cleaned; ~ expanded with home when it is known): what its
// redirections write and read and what its commands' options write. The
// edges on the agent's machine resolve their symlinks (Operation.Paths).
func (l *CommandLine) Files(home string) []string {
	var out []string
	add := func(w ShellWord) {
		if !w.Literal {
			return
		}
		if fp := normalisePath(w.Value, w.Tilde(), home); !fp.homeUnknown && fp.value != "" {
			out = append(out, fp.value)
		}
	}
	for _, c := range l.Commands {
		for _, w := range understand(c).writes {
			add(w)
		}
	}
	for _, ws := range [][]ShellWord{l.Writes, l.Reads} {
		for _, w := range ws {
			add(w)
		}
	}
	return out
}
