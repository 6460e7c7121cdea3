package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// protocolWords are the protocol's own names, which people never chose:
// they belong in the protocol reference, not in what hitl shows people.
var protocolWords = regexp.MustCompile(`loop:control|loop:current|schema[- ]?[01]\b|\bACK\b|\bRESULT\b|\bseed[- ]00\d`)

// TestHelpSpeaksPlainWords: the usage text and every command's --help
// say "run", "pause request", "the agent's status stream", never the
// protocol's names.
func TestHelpSpeaksPlainWords(t *testing.T) {
	assert.Empty(t, protocolWords.FindAllString(usage, -1), "hitl --help")
	files, err := filepath.Glob(filepath.Join("testdata", "help", "*.golden"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.Empty(t, protocolWords.FindAllString(string(b), -1), f)
	}
}
