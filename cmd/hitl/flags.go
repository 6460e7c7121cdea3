package main

import (
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/hitlbot/hitl/fault"
)

// parseArgs parses flags that may come before, between or after positional
// arguments (`hitl ask "Which DB?" --options a,b`), as people type them.
// --help prints the command's help on stdout and exits 0.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, &outcome{code: exitOK, help: flagHelp(fs)}
		} else if err != nil {
			return nil, usageError(fs, err.Error())
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// usageErr is bad input to a command (fault.EINVALID, exit 2) with the
// command's flag help, which is hitl's own text and printed as it is
// (real tabs), while the message may quote what was typed and is made
// visible where it is printed.
type usageErr struct {
	err  *fault.Error
	help string
}

func (e *usageErr) Error() string { return e.err.Message }
func (e *usageErr) Unwrap() error { return e.err }

func usageError(fs *flag.FlagSet, msg string) error {
	return &usageErr{err: fault.Errorf(fault.EINVALID, "%s", msg), help: flagHelp(fs)}
}

// flagHelp is the command's lines of the usage text and its flags.
func flagHelp(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString("usage of hitl " + fs.Name() + ":\n")
	if lines := synopsis(fs.Name()); lines != "" {
		b.WriteString(lines + "\n")
	}
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}

// synopsis is the usage text's lines for the command name (its line and
// the indented lines that continue it), or "".
func synopsis(name string) string {
	var out []string
	in := false
	for _, line := range strings.Split(usage, "\n") {
		switch {
		case strings.HasPrefix(line, "  hitl "+name+" ") || line == "  hitl "+name:
			in = true
		case in && strings.HasPrefix(line, "    "):
		default:
			in = false
		}
		if in {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// listFlag collects repeated or comma-separated values.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}
