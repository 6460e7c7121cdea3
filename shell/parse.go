// Package shell parses a shell command line (bash syntax, with
// mvdan.cc/sh) into the root's CommandLine: every simple command it runs,
// wherever it is nested, and the files its redirections touch. It only
// parses; what a line may do without a person is the root's rule.
package shell

import (
	"fmt"
	"strings"

	"github.com/hitlbot/hitl"
	"mvdan.cc/sh/v3/syntax"
)

var _ hitl.CommandParser = Parse

// Parse parses line as bash. An error means it does not parse.
func Parse(line string) (*hitl.CommandLine, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false)).
		Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, fmt.Errorf("the command does not parse as a shell command line: %w", err)
	}
	out := &hitl.CommandLine{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			c := hitl.ShellCommand{}
			for _, a := range n.Assigns {
				c.Assigns = append(c.Assigns, assign(a))
			}
			for _, w := range n.Args {
				c.Args = append(c.Args, word(w))
			}
			out.Commands = append(out.Commands, c)
		case *syntax.DeclClause:
			// declare / local / export / readonly / typeset / nameref:
			// a command whose words are assignments.
			c := hitl.ShellCommand{Args: []hitl.ShellWord{lit(n.Variant.Value)}}
			for _, a := range n.Args {
				c.Args = append(c.Args, assign(a))
			}
			out.Commands = append(out.Commands, c)
		case *syntax.Redirect:
			redirect(n, out)
		case *syntax.CoprocClause:
			out.Opaque = append(out.Opaque, "a coprocess")
		case *syntax.TestDecl:
			out.Opaque = append(out.Opaque, "a test declaration")
		}
		return true
	})
	return out, nil
}

// redirect records the file a redirection writes or reads; duplicating a
// descriptor (2>&1, >&-) and here-documents touch no file (the commands
// in a here-document body are walked like any other).
func redirect(r *syntax.Redirect, out *hitl.CommandLine) {
	if r.Word == nil {
		return
	}
	target := word(r.Word)
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob,
		syntax.AppAll, syntax.AppAllClob:
		out.Writes = append(out.Writes, target)
	case syntax.RdrInOut:
		out.Writes = append(out.Writes, target)
		out.Reads = append(out.Reads, target)
	case syntax.RdrIn:
		out.Reads = append(out.Reads, target)
	case syntax.DplOut, syntax.DplIn:
		// >&2 and >&- duplicate or close a descriptor; ">& file" (no
		// number) is bash's &> file.
		if target.Literal && (target.Value == "-" || isNumber(target.Value)) {
			return
		}
		if r.Op == syntax.DplOut {
			out.Writes = append(out.Writes, target)
		} else {
			out.Reads = append(out.Reads, target)
		}
	}
}

func isNumber(s string) bool {
	s = strings.TrimSuffix(s, "-") // >&3- moves a descriptor
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// lit is a word known to be the literal s.
func lit(s string) hitl.ShellWord {
	return hitl.ShellWord{Value: s, Text: quote(s), Literal: true}
}

// assign is an assignment as a word: NAME=value (NAME+=value, NAME[i]=…,
// NAME=(…) arrays are kept as their source text).
func assign(a *syntax.Assign) hitl.ShellWord {
	if a.Index == nil && a.Array == nil && !a.Append && a.Name != nil && !a.Naked {
		v := hitl.ShellWord{Literal: true}
		if a.Value != nil {
			v = word(a.Value)
		}
		return hitl.ShellWord{Value: a.Name.Value + "=" + v.Value, Text: a.Name.Value + "=" + v.Text, Literal: v.Literal}
	}
	if a.Naked && a.Name != nil && a.Value == nil && a.Index == nil && a.Array == nil {
		return lit(a.Name.Value) // export NAME
	}
	src := source(a)
	return hitl.ShellWord{Value: src, Text: src}
}

// word returns w's value after quote removal when it is the same whenever
// it runs; otherwise (expansions, substitutions, globs, braces, $'…') its
// source text, not literal. A leading unquoted ~ (the home directory) is
// literal and stays unquoted in Text, so ~/x and '~/x' stay apart.
func word(w *syntax.Word) hitl.ShellWord {
	var b strings.Builder
	tilde := false
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if strings.ContainsAny(v, "*?[{") {
				return dynamic(w) // globs and brace expansion
			}
			if i == 0 && strings.HasPrefix(v, "~") {
				if !strings.HasPrefix(v, "~/") && (v != "~" || len(w.Parts) > 1) {
					return dynamic(w) // ~user, ~'…'
				}
				tilde = true
			}
			b.WriteString(unescape(v))
		case *syntax.SglQuoted:
			if p.Dollar {
				return dynamic(w)
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return dynamic(w) // $"…" is translated
			}
			for _, dp := range p.Parts {
				l, ok := dp.(*syntax.Lit)
				if !ok {
					return dynamic(w)
				}
				b.WriteString(unescapeDouble(l.Value))
			}
		default:
			return dynamic(w)
		}
	}
	v := b.String()
	if tilde {
		return hitl.ShellWord{Value: v, Text: "~" + quoteRest(v[1:]), Literal: true}
	}
	return hitl.ShellWord{Value: v, Text: quote(v), Literal: true}
}

func dynamic(w *syntax.Word) hitl.ShellWord {
	src := source(w)
	return hitl.ShellWord{Value: src, Text: src}
}

// quoteRest quotes what follows a leading ~: "/x" stays /x.
func quoteRest(s string) string {
	if s == "" {
		return ""
	}
	q := quote(s)
	if q == s {
		return s
	}
	return q
}

// unescape removes the backslashes of an unquoted literal: \x is x and a
// backslash-newline is nothing.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes that quote inside double quotes:
// before $ ` " \ and newline; others stay.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// quote writes s so that the shell reads it back as s.
func quote(s string) string {
	if s == "" {
		return "''"
	}
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return fmt.Sprintf("%q", s) // a NUL byte: never the same as a real word
	}
	if q == "'"+s+"'" && plainWord(s) {
		return s // a reserved word (in, do, if): quoted only as a command name
	}
	return q
}

// plainWord reports whether s is letters, digits and underscores only.
func plainWord(s string) bool {
	for _, r := range s {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// source prints n as shell source on one line.
func source(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.Minify(false)).Print(&b, n); err != nil {
		return fmt.Sprintf("%v", n)
	}
	return strings.TrimSpace(b.String())
}
