package main

import (
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/hitlbot/hitl"
)

// parseArgs parses flags that may come before, between or after positional
// arguments (`hitl ask "Which DB?" --options a,b`), as people type them.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, &outcome{code: exitOK, msg: strings.TrimPrefix(hitl.ErrorMessage(usageError(fs, "")), "\n")}
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

func usageError(fs *flag.FlagSet, msg string) error {
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString("\nusage of hitl " + fs.Name() + ":\n")
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return hitl.Errorf(hitl.EINVALID, "%s", strings.TrimRight(b.String(), "\n"))
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
