package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// everydayLines are lines agents run every day: each must give the same
// output and exit code under its grant as without it. A line that breaks
// under its grant is a row missing from policy/grantadds.go.
var everydayLines = []string{
	"git status",
	"git status --short",
	"git log --oneline",
	"git log -1 --format=%s",
	"git diff",
	"git diff --stat HEAD~1",
	"git show --stat HEAD",
	"git branch",
	"git ls-files",
	"git rev-parse HEAD",
	"git blame src/main.go",
	"git log --oneline | head -1",
	"grep -rn hello src",
	"grep -c hello README.md",
	"find . -name '*.go' -not -path './.git/*'",
	"find src -type f",
	"sed -n 1,2p README.md",
	"sed -n '/hello/p' src/main.go",
	"ls",
	"ls -la src",
	"cat README.md",
	"head -1 README.md",
	"tail -1 README.md",
	"wc -l README.md",
	"sort src/data.txt",
	"sort src/data.txt | uniq -c",
	"cut -d, -f1 data.csv",
	"jq .name package.json",
	"jq -r '.scripts.test' package.json",
	"diff README.md src/data.txt",
	"echo hi > out.txt && cat out.txt",
	"tr a-z A-Z < README.md",
	"sha256sum README.md",
	"realpath --relative-to=. src/main.go",
	"basename src/main.go",
	"printf '%s\\n' a b",
	"env ls src",
	"go vet ./... && echo vetted",
	"go test -count=1 ./...",
	"npm test",
	"make test",
}

// everydayFixture is a repository with a Go module, a package.json whose
// test script runs node, and a Makefile.
func everydayFixture(t *testing.T) string {
	t.Helper()
	repo := gitFixture(t)
	files := map[string]string{
		"go.mod":           "module example.com/fixture\n\ngo 1.21\n",
		"src/main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestMain1(t *testing.T) {}\n",
		"data.csv":         "a,1\nb,2\n",
		"package.json":     `{"name": "fixture", "version": "1.0.0", "scripts": {"test": "node test.js"}}` + "\n",
		"test.js":          "console.log('tests pass: ' + (1 + 1));\n",
		"Makefile":         "test:\n\t@echo make tests pass\n",
	}
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644))
	}
	git(t, repo, "add", "go.mod", "src/main_test.go", "data.csv", "package.json", "test.js", "Makefile")
	git(t, repo, "commit", "-q", "-m", "third: tooling")
	return repo
}

// durations are the timings go test and npm print, which differ run to run.
var durations = regexp.MustCompile(`[0-9]+(\.[0-9]+)?m?s\b|\(cached\)`)

func TestEverydayLinesUnderTheirGrants(t *testing.T) {
	needLandlock(t)
	hitl := hitlProgram(t)
	repo := everydayFixture(t)
	require.GreaterOrEqual(t, len(everydayLines), 30)
	for _, line := range everydayLines {
		t.Run(line, func(t *testing.T) {
			prog := line[:len(line)-len(regexp.MustCompile(`^\S+`).ReplaceAllString(line, ""))]
			if _, err := exec.LookPath(prog); err != nil {
				t.Skipf("SKIPPED: %s is not installed here", prog)
			}
			without := runChild(t, repo, nil, "bash", "-c", line)
			under := underGrant(t, hitl, repo, nil, line, line)
			assert.Equal(t, without.code, under.code, "exit code; under the grant stderr: %s", under.stderr)
			assert.Equal(t, durations.ReplaceAllString(without.stdout, "T"), durations.ReplaceAllString(under.stdout, "T"),
				"stdout; under the grant stderr: %s", under.stderr)
			assert.NotEmpty(t, without.stdout+without.stderr, "the line does something to compare")
		})
	}
}
