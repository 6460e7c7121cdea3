package config_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
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

// Every test README names as evidence (TestReplicaKilledUnderLoad,
// ExampleClient_Run, …) is a test function of the repository.
func TestREADMENamedTests(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	named := regexp.MustCompile(`\b(?:Test|Example|Benchmark)[A-Z][A-Za-z0-9_]*`).FindAllString(string(b), -1)
	require.NotEmpty(t, named)
	defined := map[string]bool{}
	fn := regexp.MustCompile(`(?m)^func ((?:Test|Example|Benchmark)\w*)\(`)
	require.NoError(t, filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range fn.FindAllStringSubmatch(string(src), -1) {
			defined[m[1]] = true
		}
		return nil
	}))
	for _, name := range named {
		assert.True(t, defined[name], "README names %s, which no _test.go file defines", name)
	}
}
