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

// Every link README makes inside the repository leads somewhere: a file
// that exists, or one of its own headings (GitHub's anchors).
func TestREADMELinks(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.*)$`).FindAllStringSubmatch(string(b), -1) {
		a := strings.ToLower(strings.TrimSpace(m[1]))
		a = regexp.MustCompile(`[^\w\- ]`).ReplaceAllString(a, "")
		anchors[strings.ReplaceAll(a, " ", "-")] = true
	}
	for _, m := range regexp.MustCompile(`\]\(([^)]+)\)`).FindAllStringSubmatch(string(b), -1) {
		link := m[1]
		switch {
		case strings.HasPrefix(link, "http://"), strings.HasPrefix(link, "https://"):
		case strings.HasPrefix(link, "#"):
			assert.True(t, anchors[link[1:]], "README links to %s, which is no heading", link)
		default:
			path, _, _ := strings.Cut(link, "#")
			_, err := os.Stat("../" + path)
			assert.NoError(t, err, "README links to %s", link)
		}
	}
}
