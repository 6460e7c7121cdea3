package shell_test

import (
	"testing"

	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each row fails when the lexer check (lexOpaque) stops making the line
// opaque, or starts making a plain continuation opaque.
// TestDirectoryStackIsComputed: ~N, ~+N and ~-N are bash's directory
// stack, not users (the fuzzer found ls ~0 allowed as a user's home).
func TestDirectoryStackIsComputed(t *testing.T) {
	for _, w := range []string{"~0", "~1/x", "~+", "~-", "~+1", "~-2/x", "~00"} {
		l, err := shell.Parse("ls " + w)
		require.NoError(t, err)
		assert.False(t, l.Commands[0].Args[1].Literal, w)
	}
	l, err := shell.Parse("ls ~root ~ ~/x")
	require.NoError(t, err)
	for _, a := range l.Commands[0].Args[1:] {
		assert.True(t, a.Literal, a.Text)
	}
}

func TestLexerDisagreementsAreOpaque(t *testing.T) {
	for _, tc := range []struct {
		line   string
		opaque bool
	}{
		// the attacks
		{"echo # \\\ntouch /tmp/P", true},
		{"echo \"$\\\n(touch /tmp/P)\"", true},
		{"find . $\\\n'-exec' touch /tmp/P ';'", true},
		// backslash-newline in every other position
		{"ec\\\nho hi", true},
		{"echo $\\\nHOME", true},
		{"echo $'a\\\nb'", true},
		{"cat <<E\\\nOF\nx\nEOF", true},
		{"cat <<EOF\na\\\nb\nEOF", true},
		{"cat <<< a\\\nb", true},
		{"echo hi >\\\n/tmp/x", true},
		{"echo hi > \\\n/tmp/x", false},
		{"echo \\\n# not a comment to bash", true},
		{"echo $(ls \\\n -l)", true},
		{"echo `ls \\\n -l`", true},
		{"echo \\\n", true},
		{"echo \\\\\nls", false},
		// bytes
		{"echo a\x00b", true},
		{"echo a\rb", true},
		{"echo a\x1bb", true},
		{"echo \xff", true},
		// continuations plainly between words stay understood
		{"docker run \\\n  -v /a:/b \\\n  img ls", false},
		{"go test \\\n\t./...", false},
		{"echo 'a \\\n b'", false}, // single quotes keep it
		{"git status # fine", false},
		{"git log --oneline", false},
	} {
		l, err := shell.Parse(tc.line)
		if err != nil && tc.opaque {
			continue // a line that does not parse is opaque to the decider
		}
		require.NoError(t, err, "%q", tc.line)
		lexed := false
		for _, o := range l.Opaque {
			if o.Text == tc.line {
				lexed = true
			}
		}
		assert.Equal(t, tc.opaque, lexed, "%q: %+v", tc.line, l.Opaque)
	}
}
