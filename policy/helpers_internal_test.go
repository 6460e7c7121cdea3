package policy

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// mustParseOne parses a line of one simple command with literal words
// into a ShellCommand, without the shell package (which imports this
// one): words are split by mvdan.cc/sh and unquoted.
func mustParseOne(t *testing.T, line string) ShellCommand {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) == 0 {
		t.Fatalf("%q does not parse: %v", line, err)
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		t.Fatalf("%q is not a simple command", line)
	}
	var c ShellCommand
	for _, a := range call.Assigns {
		v := ""
		if a.Value != nil {
			v = a.Value.Lit()
		}
		c.Assigns = append(c.Assigns, ShellWord{Value: a.Name.Value + "=" + v, Text: a.Name.Value + "=" + v, Literal: true})
	}
	for _, w := range call.Args {
		var b strings.Builder
		literal := true
		for _, p := range w.Parts {
			switch p := p.(type) {
			case *syntax.Lit:
				if strings.ContainsAny(p.Value, "*?[") && p.Value != "[" {
					literal = false
				}
				b.WriteString(strings.ReplaceAll(p.Value, `\`, ""))
			case *syntax.SglQuoted:
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				for _, q := range p.Parts {
					if l, ok := q.(*syntax.Lit); ok {
						b.WriteString(l.Value)
					} else {
						literal = false
					}
				}
			default:
				literal = false
			}
		}
		c.Args = append(c.Args, ShellWord{Value: b.String(), Text: b.String(), Literal: literal})
	}
	return c
}
