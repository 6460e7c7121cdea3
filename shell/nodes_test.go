package shell_test

import (
	"strings"
	"testing"

	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryNodeKind is a row per node kind of mvdan.cc/sh's syntax tree:
// the kinds modelled completely add no opaque entry; every other kind is
// opaque (what is the start of the reason a person reads).
func TestEveryNodeKind(t *testing.T) {
	for _, tc := range []struct {
		kind, line string
		what       string // "" when modelled
	}{
		{"CallExpr", "git status", ""},
		{"BinaryCmd &&", "a && b", ""},
		{"BinaryCmd ||", "a || b", ""},
		{"BinaryCmd |", "a | b", ""},
		{"BinaryCmd |&", "a |& b", ""},
		{"Stmt ;", "a; b", ""},
		{"Stmt !", "! a", ""},
		{"Stmt &", "a & b", ""},
		{"Subshell", "(a; b)", ""},
		{"Block", "{ a; b; }", ""},
		{"TimeClause", "time a", ""},
		{"TimeClause after a pipe", "a | time b", "time or ! after a pipe"},
		{"Redirect to a literal path", "a > out 2>&1 < in", ""},
		{"Redirect {name}>", "a {fd}> out", "a redirection that assigns"},
		{"here-document, quoted", "cat <<'E'\n$(x) ${y@P}\nE", ""},
		{"here-document, no expansion", "cat <<E\nplain\nE", ""},
		{"here-document with expansions", "cat <<E\n$HOME\nE", "a here-document with expansions"},
		{"here-string, literal", "cat <<< 'a b'", ""},
		{"here-string, computed", "cat <<< $x", "a here-string computed"},
		{"IfClause", "if a; then b; fi", "an if statement"},
		{"WhileClause", "while a; do b; done", "a loop"},
		{"WhileClause until", "until a; do b; done", "a loop"},
		{"ForClause WordIter", "for i in a; do b; done", "a loop"},
		{"ForClause CStyleLoop", "for ((i=0;i<1;i++)); do b; done", "a loop"},
		{"CaseClause", "case x in x) a;; esac", "a case statement"},
		{"FuncDecl", "f() { a; }", "a function definition"},
		{"FuncDecl function", "function f { a; }", "a function definition"},
		{"ArithmCmd", "(( a[$(x)] ))", "arithmetic"},
		{"TestClause", "[[ -n a ]]", "a [[ ]] test"},
		{"DeclClause declare", "declare -n r=a", "declare"},
		{"DeclClause local", "local a=1", "local"},
		{"DeclClause export", "export A=1", "export"},
		{"DeclClause readonly", "readonly A", "readonly"},
		{"DeclClause typeset", "typeset A", "typeset"},
		{"LetClause", "let 'a[$(x)]=1'", "let"},
		{"CoprocClause", "coproc a", "a coprocess"},
		{"ParamExp plain (computed, not opaque)", "echo $HOME ${HOME}", ""},
		{"ParamExp with an operator", "echo ${x:-y}", "a parameter expansion with operators"},
		{"ParamExp @P", "echo ${x@P}", "a parameter expansion with operators"},
		{"ParamExp indirect", "echo ${!x}", "a parameter expansion with operators"},
		{"ParamExp subscript", "echo ${a[$(x)]}", "a parameter expansion with operators"},
		{"ParamExp length", "echo ${#x}", "a parameter expansion with operators"},
		{"CmdSubst (its command is a part)", "echo $(a)", ""},
		{"ProcSubst (its command is a part)", "cat <(a)", ""},
		{"ArithmExp", "echo $((1+1))", "arithmetic"},
		{"ExtGlob", "ls @(a|b)", "an extended glob pattern"},
		{"Assign with a subscript", "a[$(x)]=1", "an assignment with a subscript"},
		{"Assign an array", "a=(1 2)", "an assignment with a subscript"},
		{"Assign +=", "a+=1", "an assignment with a subscript"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			l, err := shell.Parse(tc.line)
			require.NoError(t, err)
			if tc.what == "" {
				assert.Empty(t, l.Opaque, "%s is modelled", tc.line)
				return
			}
			require.NotEmpty(t, l.Opaque, "%s is opaque", tc.line)
			found := false
			for _, o := range l.Opaque {
				found = found || strings.HasPrefix(o.What, tc.what)
			}
			assert.True(t, found, "%s: %+v", tc.line, l.Opaque)
		})
	}
}

// TestOpaqueNodesStillShowTheirCommands: commands nested in an opaque
// node are still parts, so a deny rule sees them.
func TestOpaqueNodesStillShowTheirCommands(t *testing.T) {
	for line, want := range map[string]string{
		"for i in a; do rm -rf /; done":       "rm -rf /",
		"(( $(rm -rf /) ))":                   "rm -rf /",
		"[[ -n $(rm -rf /) ]]":                "rm -rf /",
		"f() { rm -rf /; }":                   "rm -rf /",
		"echo ${x:-$(rm -rf /)}":              "rm -rf /",
		"let x=$(rm -rf /)":                   "rm -rf /",
		"cat <<E\n$(rm -rf /)\nE":             "rm -rf /",
		"a[$(rm -rf /)]=1":                    "rm -rf /",
		"case $(rm -rf /) in *) ;; esac":      "rm -rf /",
		"ls @(a|$(rm -rf /))":                 "rm -rf /",
		"coproc rm -rf /":                     "rm -rf /",
		"declare x=$(rm -rf /)":               "rm -rf /",
		"if true; then rm -rf /; fi":          "rm -rf /",
		"while true; do rm -rf /; done":       "rm -rf /",
		"a | time rm -rf /":                   "rm -rf /",
		"for ((i=$(rm -rf /);;)); do :; done": "rm -rf /",
	} {
		got, _, _ := texts(t, line)
		assert.Contains(t, got, want, line)
	}
}

func TestTildeWords(t *testing.T) {
	for _, tc := range []struct {
		word, value, text string
		literal           bool
	}{
		{"~", "~", "~", true},
		{"~/x", "~/x", "~/x", true},
		{"~root/x", "~root/x", "~root/x", true},
		{"'~/x'", "~/x", "'~/x'", true},
		{"~+", "~+", "~+", false},
		{"~-/x", "~-/x", "~-/x", false},
		{"a=~/x", "a=~/x", "a=~/x", false},
		{"x:~/y", "x:~/y", "x:~/y", false},
		{"a~b", "a~b", "'a~b'", true},
	} {
		l, err := shell.Parse("echo " + tc.word)
		require.NoError(t, err)
		w := l.Commands[0].Args[1]
		assert.Equal(t, tc.value, w.Value, tc.word)
		assert.Equal(t, tc.text, w.Text, tc.word)
		assert.Equal(t, tc.literal, w.Literal, tc.word)
	}
}

// TestPatternWords: a word bash expands as a pattern or braces is
// computed; a lone [ or {} is a plain word.
func TestPatternWords(t *testing.T) {
	for word, literal := range map[string]bool{
		"[": true, "]": true, "{}": true, "a{b": true, "a,b": true, "'*'": true, `\*`: true, `"a[1]"`: true,
		"*": false, "a?": false, "a[1]": false, "[ab]": false, "{a,b}": false, "x{1..3}": false, "a[": true,
	} {
		l, err := shell.Parse("echo " + word)
		require.NoError(t, err)
		assert.Equal(t, literal, l.Commands[0].Args[1].Literal, word)
	}
}
