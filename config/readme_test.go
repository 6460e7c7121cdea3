package config_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeBlocks returns the fenced code blocks of README.md in a language.
func readmeBlocks(t *testing.T, lang string) []string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	re := regexp.MustCompile("(?ms)^ *```" + lang + "\n(.*?)^ *```")
	var out []string
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	require.NotEmpty(t, out, "README.md has %s blocks", lang)
	return out
}

// A newcomer copies README's config blocks into a file: each one loads and
// validates as it is shown.
func TestREADMEConfigBlocks(t *testing.T) {
	for i, block := range readmeBlocks(t, "yaml") {
		if strings.HasPrefix(block, "groups:") {
			continue // the Prometheus alerting rules, not hitl's config
		}
		first, _, _ := strings.Cut(strings.TrimSpace(block), "\n")
		t.Run(first, func(t *testing.T) {
			c, err := config.Load(writeFile(t, block), env(nil))
			require.NoError(t, err, "README yaml block %d:\n%s", i, block)
			assert.NoError(t, c.Validate(), "README yaml block %d:\n%s", i, block)
		})
	}
}

// Every JSON block README shows (the hooks and MCP registrations people copy)
// parses.
func TestREADMEJSONBlocks(t *testing.T) {
	for i, block := range readmeBlocks(t, "json") {
		var v any
		assert.NoError(t, json.Unmarshal([]byte(block), &v), "README json block %d:\n%s", i, block)
	}
}
