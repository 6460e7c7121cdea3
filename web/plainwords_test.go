package web

import (
	"io/fs"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTemplatesSpeakPlainWords: what the pages say never uses the
// protocol's own names (loop:control, ACK, RESULT, schema numbers, the
// seeds).
func TestTemplatesSpeakPlainWords(t *testing.T) {
	words := regexp.MustCompile(`loop:control|loop:current|schema[- ]?[01]\b|\bACK\b|\bRESULT\b|\bseed[- ]00\d`)
	n := 0
	err := fs.WalkDir(templateFS, "templates", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(templateFS, path)
		require.NoError(t, err)
		assert.Empty(t, words.FindAllString(string(b), -1), path)
		n++
		return nil
	})
	require.NoError(t, err)
	assert.Positive(t, n)
}
