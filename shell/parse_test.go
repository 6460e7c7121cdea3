package shell_test

import (
	"testing"

	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func texts(t *testing.T, line string) (cmds, writes, reads []string) {
	t.Helper()
	l, err := shell.Parse(line)
	require.NoError(t, err)
	for _, c := range l.Commands {
		cmds = append(cmds, c.Text())
	}
	for _, w := range l.Writes {
		writes = append(writes, w.Text)
	}
	for _, r := range l.Reads {
		reads = append(reads, r.Text)
	}
	return cmds, writes, reads
}

func TestParseFindsEveryCommand(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"git status", []string{"git status"}},
		{`'git'   "status"`, []string{"git status"}},
		{"a && b || c; d | e & f", []string{"a", "b", "c", "d", "e", "f"}},
		{"a $(b `c`)", []string{"a $(b $(c))", "b $(c)", "c"}},
		{"grep -r in . | sort", []string{"grep -r in .", "sort"}},
		{"cat <(ls) >(wc -l)", []string{"cat <(ls) >(wc -l)", "ls", "wc -l"}},
		{"(a; { b; })", []string{"a", "b"}},
		{"if a; then b; elif c; then d; else e; fi", []string{"a", "b", "c", "d", "e"}},
		{"f() { rm -rf ~; }; f", []string{"rm -rf ~", "f"}},
		{"cat <<EOF\n$(whoami)\nEOF", []string{"cat", "whoami"}},
		{"cat <<'EOF'\n$(whoami)\nEOF", []string{"cat"}},
		{"x=$(id) y=1", []string{"x=$(id) y=1", "id"}},
		{"FOO=bar env", []string{"FOO=bar env"}},
		{"export PATH=/tmp", []string{"export PATH=/tmp"}},
		{"echo ${X:-$(id)}", []string{"echo ${X:-$(id)}", "id"}},
		{"git status # && rm -rf ~", []string{"git status"}},
		{`git status "a; b"`, []string{"git status 'a; b'"}},
		{`git status \&\& rm`, []string{"git status '&&' rm"}},
	} {
		t.Run(tc.line, func(t *testing.T) {
			got, _, _ := texts(t, tc.line)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseFindsFiles(t *testing.T) {
	for _, tc := range []struct {
		line          string
		writes, reads []string
	}{
		{"a > out", []string{"out"}, nil},
		{"a >> out 2>&1", []string{"out"}, nil},
		{"a &> out", []string{"out"}, nil},
		{"a >& out", []string{"out"}, nil},
		{"a >&2", nil, nil},
		{"a 2>&-", nil, nil},
		{"a >| out < in", []string{"out"}, []string{"in"}},
		{"a <> both", []string{"both"}, []string{"both"}},
		{"a > ~/.bashrc", []string{"~/.bashrc"}, nil},
		{"a > $OUT", []string{"$OUT"}, nil},
		{"a <<< word", nil, nil},
	} {
		t.Run(tc.line, func(t *testing.T) {
			_, w, r := texts(t, tc.line)
			assert.Equal(t, tc.writes, w)
			assert.Equal(t, tc.reads, r)
		})
	}
}

func TestParseWords(t *testing.T) {
	l, err := shell.Parse(`rm -rf ~ ~/x '~/y' $D * {a,b} $'\n' "$(id)" "plain text"`)
	require.NoError(t, err)
	args := l.Commands[0].Args
	for i, want := range []struct {
		value, text string
		literal     bool
	}{
		{"rm", "rm", true}, {"-rf", "-rf", true}, {"~", "~", true}, {"~/x", "~/x", true}, {"~/y", "'~/y'", true},
		{"$D", "$D", false}, {"*", "*", false}, {"{a,b}", "{a,b}", false}, {`$'\n'`, `$'\n'`, false},
		{`"$(id)"`, `"$(id)"`, false}, {"plain text", "'plain text'", true},
	} {
		assert.Equal(t, want.value, args[i].Value, "word %d", i)
		assert.Equal(t, want.text, args[i].Text, "word %d", i)
		assert.Equal(t, want.literal, args[i].Literal, "word %d", i)
	}
	assert.True(t, l.Commands[0].Dynamic())
}

func TestParseErrors(t *testing.T) {
	for _, line := range []string{"git status 'open", "a )", "if a; then", "a |", "$(("} {
		_, err := shell.Parse(line)
		assert.Error(t, err, line)
	}
}
