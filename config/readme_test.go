package config_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// The manual is README.md (the front door) and docs/*.md (the reference).
// These tests keep it honest: what it shows loads, what it links to
// exists, what it cites as evidence is a test, and protocol words stay in
// the protocol reference.

// repoRoot is the repository, seen from this package's directory.
const repoRoot = ".."

// manualFiles returns README.md and every docs/*.md, as paths from the
// repository root.
func manualFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, docs, "docs/ holds the manual")
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, filepath.ToSlash(strings.TrimPrefix(d, repoRoot+string(filepath.Separator))))
	}
	return files
}

func readManual(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, file))
	require.NoError(t, err)
	return string(b)
}

// fence matches a fenced code block: its language and its text.
var fence = regexp.MustCompile("(?ms)^ *```([a-z]*)\n(.*?)^ *```")

// codeBlocks returns the fenced blocks of text in a language.
func codeBlocks(text, lang string) []string {
	var out []string
	for _, m := range fence.FindAllStringSubmatch(text, -1) {
		if m[1] == lang {
			out = append(out, m[2])
		}
	}
	return out
}

var (
	inlineCode = regexp.MustCompile("`[^`\n]*`")
	heading    = regexp.MustCompile(`(?m)^#+ (.*)$`)
	notAnchor  = regexp.MustCompile(`[^\w\- ]`)
)

// prose is text without its code blocks and inline code: what a reader
// reads as words, links and headings.
func prose(text string) string {
	return inlineCode.ReplaceAllString(fence.ReplaceAllString(text, ""), "")
}

// anchors returns the GitHub anchors of a Markdown file's headings.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(fence.ReplaceAllString(text, ""), -1) {
		a := notAnchor.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), "")
		out[strings.ReplaceAll(a, " ", "-")] = true
	}
	return out
}

// A newcomer copies the manual's config blocks into a file: each one loads
// and validates as it is shown. Every YAML block parses (the Prometheus
// alerting rules too).
func TestManualConfigBlocks(t *testing.T) {
	n := 0
	for _, file := range manualFiles(t) {
		for i, block := range codeBlocks(readManual(t, file), "yaml") {
			n++
			first, _, _ := strings.Cut(strings.TrimSpace(block), "\n")
			t.Run(file+"/"+first, func(t *testing.T) {
				var v any
				require.NoError(t, yaml.Unmarshal([]byte(block), &v), "%s yaml block %d:\n%s", file, i, block)
				if strings.HasPrefix(block, "groups:") {
					return // the Prometheus alerting rules, not hitl's config
				}
				c, err := config.Load(writeFile(t, block), env(nil))
				require.NoError(t, err, "%s yaml block %d:\n%s", file, i, block)
				assert.NoError(t, c.Validate(), "%s yaml block %d:\n%s", file, i, block)
			})
		}
	}
	assert.NotZero(t, n, "the manual shows config")
}

// Every JSON block the manual shows (the hooks and MCP registrations
// people copy, the protocol's messages) parses.
func TestManualJSONBlocks(t *testing.T) {
	n := 0
	for _, file := range manualFiles(t) {
		for i, block := range codeBlocks(readManual(t, file), "json") {
			n++
			var v any
			assert.NoError(t, json.Unmarshal([]byte(block), &v), "%s json block %d:\n%s", file, i, block)
		}
	}
	assert.NotZero(t, n, "the manual shows JSON")
}

// Every link the manual makes inside the repository leads somewhere: a
// file that exists and, with an anchor, one of that file's headings.
func TestManualLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headings := map[string]map[string]bool{}
	anchorsOf := func(file string) map[string]bool {
		if _, ok := headings[file]; !ok {
			headings[file] = anchors(readManual(t, file))
		}
		return headings[file]
	}
	for _, file := range manualFiles(t) {
		text := readManual(t, file)
		for _, m := range link.FindAllStringSubmatch(prose(text), -1) {
			target := m[1]
			if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.ToSlash(filepath.Join(filepath.Dir(file), path))
				_, err := os.Stat(filepath.Join(repoRoot, dest))
				if !assert.NoError(t, err, "%s links to %s", file, target) {
					continue
				}
			}
			if anchor != "" {
				require.True(t, strings.HasSuffix(dest, ".md"), "%s links to an anchor of %s, which is no Markdown file", file, target)
				assert.True(t, anchorsOf(dest)[anchor], "%s links to %s, which is no heading of %s", file, target, dest)
			}
		}
	}
}

// Every test the manual names as evidence (TestReplicaKilledUnderLoad,
// ExampleClient_Run, BenchmarkScrape …) is a test function of the
// repository.
func TestManualNamedTests(t *testing.T) {
	defined := map[string]bool{}
	fn := regexp.MustCompile(`(?m)^func ((?:Test|Example|Benchmark|Fuzz)\w*)\(`)
	require.NoError(t, filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != repoRoot {
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
	named := regexp.MustCompile(`\b(?:Test|Example|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*`)
	total := 0
	for _, file := range manualFiles(t) {
		for _, name := range named.FindAllString(readManual(t, file), -1) {
			total++
			assert.True(t, defined[name], "%s names %s, which no _test.go file defines", file, name)
		}
	}
	assert.NotZero(t, total, "the manual cites its evidence")
}

// technical are the pages written for those who write clients or change
// hitl: they may use the protocol's own names. Every other page, README
// first, speaks the user's words: a run, a pause request, the agent's
// status stream.
var technical = []string{"docs/protocol.md", "docs/architecture.md", "docs/benchmarks.md"}

// protocolWords are names a user never chose: the topics, the schema
// numbers, the message types, and the specifications ("seeds") they come
// from.
var protocolWords = regexp.MustCompile("loop:control|loop:current|\\bschema[- ][01]\\b|\\bACK\\b|\\bRESULT\\b|\\bREQUEST\\b|(?i:\\bseeds?\\b)")

func TestManualPlainWords(t *testing.T) {
	for _, file := range manualFiles(t) {
		if slices.Contains(technical, file) {
			continue
		}
		for i, line := range strings.Split(readManual(t, file), "\n") {
			if w := protocolWords.FindString(line); w != "" {
				t.Errorf("%s:%d says %q: protocol names belong in docs/protocol.md (say run, pause request, the agent's status stream)\n%s", file, i+1, w, line)
			}
		}
	}
}

// README is the front door: short, with every page of the manual one link
// away.
func TestREADMEFrontDoor(t *testing.T) {
	readme := readManual(t, "README.md")
	assert.LessOrEqual(t, len(readme), 25*1024, "README.md is the front door; the reference belongs in docs/")
	for _, file := range manualFiles(t) {
		if file == "README.md" {
			continue
		}
		assert.Contains(t, prose(readme), "]("+file+")", "README.md links to %s", file)
	}
}

// Code comments cite the manual's sections (docs/protocol.md#steering …),
// not documents outside the repository: every page and anchor they cite
// exists. Only comments count: a test's data may name any file.
func TestCodeCitesTheManual(t *testing.T) {
	cite := regexp.MustCompile(`docs/([\w-]+\.md)(?:#([\w-]+))?`)
	pages := map[string]map[string]bool{} // page → its anchors; nil: no such page
	n := 0
	require.NoError(t, filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != repoRoot {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var comments strings.Builder // what follows // on each line: the code's comments
		for _, line := range strings.Split(string(src), "\n") {
			if i := strings.Index(line, "//"); i >= 0 {
				comments.WriteString(line[i:] + "\n")
			}
		}
		for _, m := range cite.FindAllStringSubmatch(comments.String(), -1) {
			n++
			page := "docs/" + m[1]
			a, read := pages[page]
			if !read {
				if b, err := os.ReadFile(filepath.Join(repoRoot, page)); err == nil {
					a = anchors(string(b))
				}
				pages[page] = a
			}
			if !assert.NotNil(t, a, "%s cites %s, which is no page", path, m[0]) {
				continue
			}
			if m[2] != "" {
				assert.True(t, a[m[2]], "%s cites %s, which is no heading of %s", path, m[0], page)
			}
		}
		return nil
	}))
	assert.NotZero(t, n, "the code cites the manual")
}
