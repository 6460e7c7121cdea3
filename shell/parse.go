// Package shell parses a shell command line (bash syntax, with
// mvdan.cc/sh) into policy's CommandLine: every simple command it runs,
// wherever it is nested, the files its redirections touch, and every node
// of the syntax tree whose effect the policy does not model. It only
// parses; what a line may do without a person is the root's rule.
//
// The walk is fail-closed: it knows each node kind by an explicit type
// switch, and only the kinds it models completely (simple commands,
// pipes, &&, ||, ;, !, &, subshells, blocks, time, redirections) add no
// opaque entry. Every other kind — and any kind the parser adds later,
// through the default branches — is opaque. Commands nested inside an
// opaque node are still collected, so a deny rule still sees them.
package shell

import (
	"fmt"
	"strings"

	"github.com/hitlbot/hitl/policy"
	"mvdan.cc/sh/v3/syntax"
)

var _ policy.CommandParser = Parse

// Parse parses line as bash. An error means it does not parse.
func Parse(line string) (*policy.CommandLine, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false)).
		Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, fmt.Errorf("the command does not parse as a shell command line: %w", err)
	}
	w := &walker{out: &policy.CommandLine{}}
	if why := lexOpaque(line); why != "" {
		w.out.Opaque = append(w.out.Opaque, policy.ShellOpaque{Text: line, What: why})
	}
	w.stmts(f.Stmts)
	w.out.LeadingCd = leadingCd(f.Stmts)
	return w.out, nil
}

// leadingCd reports whether stmts are one list cd … && … in which every
// other command runs only once the cd succeeded: each && on the way
// down to the leftmost command, which is a plain cd (no assignments, no
// redirections — they are opened where the line starts — not negated,
// not in the background).
func leadingCd(stmts []*syntax.Stmt) bool {
	if len(stmts) != 1 {
		return false
	}
	s := stmts[0]
	if _, ok := s.Cmd.(*syntax.BinaryCmd); !ok {
		return false // a lone cd: nothing runs after it
	}
	for {
		if len(s.Redirs) > 0 {
			return false // cd /x > out opens out where the line starts
		}
		b, ok := s.Cmd.(*syntax.BinaryCmd)
		if !ok {
			break
		}
		if b.Op != syntax.AndStmt || b.X.Negated || b.X.Background || b.X.Coprocess {
			return false
		}
		s = b.X
	}
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 || len(c.Args[0].Parts) != 1 {
		return false
	}
	lit, ok := c.Args[0].Parts[0].(*syntax.Lit)
	return ok && lit.Value == "cd"
}

type walker struct {
	out *policy.CommandLine
}

func (w *walker) opaque(n syntax.Node, what string) {
	w.out.Opaque = append(w.out.Opaque, policy.ShellOpaque{Text: source(n), What: what})
}

func (w *walker) stmts(ss []*syntax.Stmt) {
	for _, s := range ss {
		w.stmt(s)
	}
}

// stmt walks one statement: ! and & are modelled (they change no
// command's effect); a coprocess is not.
func (w *walker) stmt(s *syntax.Stmt) {
	if s.Coprocess || s.Disown {
		w.opaque(s, "a coprocess")
	}
	switch c := s.Cmd.(type) {
	case nil:
		// only redirections: "> file" creates or truncates the file
	case *syntax.CallExpr:
		w.call(c)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
		case syntax.Pipe, syntax.PipeAll:
			// time and ! are reserved words only where a pipeline
			// starts: after a | bash runs the time program.
			if _, ok := c.Y.Cmd.(*syntax.TimeClause); ok || c.Y.Negated {
				w.opaque(c.Y, "time or ! after a pipe, which bash does not read as mvdan.cc/sh does")
			}
		default:
			w.opaque(c, "an operator the policy does not model ("+c.Op.String()+")")
		}
		w.stmt(c.X)
		w.stmt(c.Y)
	case *syntax.Subshell:
		w.stmts(c.Stmts)
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			w.stmt(c.Stmt)
		}
	case *syntax.IfClause:
		w.opaque(c, "an if statement")
		w.inside(c)
	case *syntax.WhileClause:
		w.opaque(c, "a loop")
		w.inside(c)
	case *syntax.ForClause:
		w.opaque(c, "a loop")
		w.inside(c)
	case *syntax.CaseClause:
		w.opaque(c, "a case statement")
		w.inside(c)
	case *syntax.FuncDecl:
		w.opaque(c, "a function definition")
		w.inside(c)
	case *syntax.ArithmCmd:
		w.opaque(c, "arithmetic, which evaluates array subscripts")
		w.inside(c)
	case *syntax.TestClause:
		w.opaque(c, "a [[ ]] test, which evaluates its operands")
		w.inside(c)
	case *syntax.DeclClause:
		w.declCommand(c)
		w.opaque(c, c.Variant.Value+", which assigns through names")
		w.inside(c)
	case *syntax.LetClause:
		w.opaque(c, "let, which evaluates arithmetic")
		w.inside(c)
	case *syntax.CoprocClause:
		w.opaque(c, "a coprocess")
		w.inside(c)
	case *syntax.TestDecl:
		w.opaque(c, "a test declaration")
		w.inside(c)
	default:
		w.opaque(c, fmt.Sprintf("a construct the policy does not model (%T)", c))
		w.inside(c)
	}
	for _, r := range s.Redirs {
		w.redirect(r)
	}
}

// inside walks what an opaque node holds: its statements (loop bodies,
// command substitutions in its words) are walked like any other, so
// their commands still meet deny rules.
func (w *walker) inside(n syntax.Node) {
	syntax.Walk(n, func(m syntax.Node) bool {
		if m == n {
			return true
		}
		if s, ok := m.(*syntax.Stmt); ok {
			w.stmt(s)
			return false
		}
		return true
	})
}

// declCommand records declare / local / export / readonly / typeset as a
// command, so that rules about it still match.
func (w *walker) declCommand(c *syntax.DeclClause) {
	cmd := policy.ShellCommand{Args: []policy.ShellWord{lit(c.Variant.Value)}}
	for _, a := range c.Args {
		cmd.Args = append(cmd.Args, assignWord(a))
	}
	w.out.Commands = append(w.out.Commands, cmd)
}

// call records a simple command. Assignments with a subscript, an array
// or += are opaque.
func (w *walker) call(c *syntax.CallExpr) {
	cmd := policy.ShellCommand{}
	for _, a := range c.Assigns {
		cmd.Assigns = append(cmd.Assigns, assignWord(a))
	}
	for _, a := range c.Args {
		cmd.Args = append(cmd.Args, word(a))
	}
	w.out.Commands = append(w.out.Commands, cmd)
	for _, a := range c.Assigns {
		if a.Index != nil || a.Array != nil || a.Append || a.Naked {
			w.opaque(a, "an assignment with a subscript, an array or +=")
		}
		if a.Index != nil {
			w.inside(a.Index)
		}
		if a.Array != nil {
			w.inside(a.Array)
		}
		if a.Value != nil {
			w.parts(a.Value)
		}
	}
	for _, a := range c.Args {
		w.parts(a)
	}
}

// parts walks the parts of a word: substitutions run their commands;
// expansions with operators, arithmetic and extglob are opaque. A plain
// $NAME only makes the word computed (never literal).
func (w *walker) parts(wd *syntax.Word) {
	for _, p := range wd.Parts {
		w.part(p)
	}
}

func (w *walker) part(p syntax.WordPart) {
	switch p := p.(type) {
	case *syntax.Lit, *syntax.SglQuoted:
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			w.part(q)
		}
	case *syntax.ParamExp:
		if !simpleParam(p) {
			w.opaque(p, "a parameter expansion with operators")
			w.inside(p)
		}
	case *syntax.CmdSubst:
		w.stmts(p.Stmts)
	case *syntax.ProcSubst:
		w.stmts(p.Stmts)
	case *syntax.ArithmExp:
		w.opaque(p, "arithmetic, which evaluates array subscripts")
		w.inside(p)
	case *syntax.ExtGlob:
		w.opaque(p, "an extended glob pattern")
		// The pattern is kept as text; bash expands what it holds.
		if p.Pattern != nil {
			if doc, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader(p.Pattern.Value)); err == nil {
				w.parts(doc)
			} else {
				w.opaque(p, "an extended glob pattern that does not parse")
			}
		}
	case *syntax.BraceExp:
		w.inside(p)
	default:
		w.opaque(p, fmt.Sprintf("a word part the policy does not model (%T)", p))
		w.inside(p)
	}
}

// simpleParam reports whether p is a plain $NAME or ${NAME} (or a special
// parameter like $1 or $?): an expansion that evaluates nothing.
func simpleParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil && !p.Excl && !p.Length && !p.Width && !p.IsSet &&
		p.Split == syntax.OptUnset && p.GlobSubst == syntax.OptUnset && p.RcExpand == syntax.OptUnset &&
		p.NestedParam == nil && p.Index == nil && len(p.Modifiers) == 0 && p.Slice == nil &&
		p.Repl == nil && p.Names == 0 && p.Exp == nil
}

// redirect records the file a redirection writes or reads; duplicating a
// descriptor (2>&1, >&-) touches no file. A here-document or here-string
// whose text is computed when it runs is opaque; {name}> assigns a
// descriptor to a name and is opaque.
func (w *walker) redirect(r *syntax.Redirect) {
	if r.N != nil && !isNumber(r.N.Value) {
		w.opaque(r, "a redirection that assigns a descriptor to a name")
	}
	if r.Hdoc != nil {
		if !hdocLiteral(r.Hdoc) {
			w.opaque(r, "a here-document with expansions")
		}
		w.parts(r.Hdoc)
	}
	if r.Word == nil {
		return
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		return // r.Word is the delimiter
	case syntax.WordHdoc:
		if !word(r.Word).Literal {
			w.opaque(r, "a here-string computed when it runs")
		}
		w.parts(r.Word)
		return
	}
	w.parts(r.Word)
	target := word(r.Word)
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob,
		syntax.AppAll, syntax.AppAllClob:
		w.out.Writes = append(w.out.Writes, target)
	case syntax.RdrInOut:
		w.out.Writes = append(w.out.Writes, target)
		w.out.Reads = append(w.out.Reads, target)
	case syntax.RdrIn:
		w.out.Reads = append(w.out.Reads, target)
	case syntax.DplOut, syntax.DplIn:
		// >&2 and >&- duplicate or close a descriptor; ">& file" (no
		// number) is bash's &> file.
		if target.Literal && (target.Value == "-" || isNumber(target.Value)) {
			return
		}
		if r.Op == syntax.DplOut {
			w.out.Writes = append(w.out.Writes, target)
		} else {
			w.out.Reads = append(w.out.Reads, target)
		}
	default:
		w.opaque(r, "a redirection the policy does not model")
	}
}

// hdocLiteral reports whether a here-document body is text only.
func hdocLiteral(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			return false
		}
	}
	return true
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

// globOrBraces reports whether an unquoted literal v (of the word whose
// source is src) is a pattern or a brace expansion: * and ? always; [
// only with a ] after it; { only with a } and a , or .. (a lone [ or {}
// is a plain word to bash).
func globOrBraces(v, src string) bool {
	var b strings.Builder // v without its backslash-escaped characters
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' {
			i++
			continue
		}
		b.WriteByte(v[i])
	}
	v = b.String()
	if strings.ContainsAny(v, "*?") {
		return true
	}
	if i := strings.IndexByte(v, '['); i >= 0 && strings.Contains(src[strings.Index(src, "["):], "]") {
		return true
	}
	if i := strings.IndexByte(v, '{'); i >= 0 {
		rest := src[strings.Index(src, "{"):]
		return strings.Contains(rest, "}") && (strings.Contains(rest, ",") || strings.Contains(rest, ".."))
	}
	return false
}

// homeUser reports whether ~user names a home directory bash expands:
// empty (the agent's own) or a user name.
func homeUser(u string) bool {
	for _, r := range u {
		if !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	if u != "" && strings.Trim(u, "0123456789") == "" {
		return false // ~N is the directory stack (~+N), not a user
	}
	return u == "" || u[0] != '-' && u[0] != '+'
}

// lit is a word known to be the literal s.
func lit(s string) policy.ShellWord {
	return policy.ShellWord{Value: s, Text: quote(s), Literal: true}
}

// assign is an assignment as a word: NAME=value (NAME+=value, NAME[i]=…,
// NAME=(…) arrays are kept as their source text).
func assignWord(a *syntax.Assign) policy.ShellWord {
	if a.Index == nil && a.Array == nil && !a.Append && a.Name != nil && !a.Naked {
		v := policy.ShellWord{Literal: true}
		if a.Value != nil {
			v = word(a.Value)
		}
		return policy.ShellWord{Value: a.Name.Value + "=" + v.Value, Text: a.Name.Value + "=" + v.Text, Literal: v.Literal}
	}
	if a.Naked && a.Name != nil && a.Value == nil && a.Index == nil && a.Array == nil {
		return lit(a.Name.Value) // export NAME
	}
	src := source(a)
	return policy.ShellWord{Value: src, Text: src}
}

// word returns w's value after quote removal when it is the same whenever
// it runs; otherwise (expansions, substitutions, globs, braces, $'…') its
// source text, not literal. A leading unquoted ~ (the home directory) is
// literal and stays unquoted in Text, so ~/x and '~/x' stay apart.
func word(w *syntax.Word) policy.ShellWord {
	var b strings.Builder
	tilde := false
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if globOrBraces(v, source(w)) {
				return dynamic(w) // globs and brace expansion
			}
			if i == 0 && strings.HasPrefix(v, "~") {
				user, _, _ := strings.Cut(v[1:], "/")
				if !homeUser(user) || (!strings.Contains(v, "/") && len(w.Parts) > 1) {
					return dynamic(w) // ~+, ~-, ~'…'
				}
				tilde = true
			}
			if strings.Contains(v, "=~") || strings.Contains(v, ":~") {
				return dynamic(w) // bash expands ~ after = and : in a word like NAME=~/x
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
		return policy.ShellWord{Value: v, Text: "~" + quoteRest(v[1:]), Literal: true}
	}
	return policy.ShellWord{Value: v, Text: quote(v), Literal: true}
}

func dynamic(w *syntax.Word) policy.ShellWord {
	src := source(w)
	return policy.ShellWord{Value: src, Text: src}
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
	if s == "[" || s == "]" || s == "{}" {
		return s // plain words to bash, written as people write them
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
