package service_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/shell"
)

// ordinaryRules are the read-only and build rules a team writes for a
// coding agent.
var ordinaryRules = func() []hitl.Rule {
	var rules []hitl.Rule
	for _, c := range []string{"git status", "git log", "git diff", "git show", "git branch", "git blame", "git rev-parse", "ls", "cat",
		"head", "tail", "grep", "rg", "sed -n", "find", "wc", "echo", "pwd", "make test", "make lint", "make build", "go test", "go build",
		"go vet", "go list", "npm test", "npm run", "jq", "sort", "uniq", "diff", "which", "tree", "cut", "tr", "file", "stat", "du", "printf",
		"test", "[", "true", "xargs", "awk", "python3 -m pytest", "cargo test", "cargo build"} {
		rules = append(rules, hitl.Rule{Name: c, OpType: hitl.OpShell, Resource: c, Effect: hitl.EffectAllow})
	}
	return append(rules, hitl.Rule{Name: "tmp", OpType: hitl.OpFileWrite, Resource: "/tmp/*", Effect: hitl.EffectAllow})
}()

// ordinaryLines are lines coding agents run every day, each of which the
// rules above mean to allow.
var ordinaryLines = []string{
	"git status", "git status --short", "git log --oneline -5", "git log -p -1 -- README.md", "git diff", "git diff --stat",
	"git diff HEAD~1 -- main.go", "git show HEAD:go.mod", "git branch -a", "git blame -L 10,20 main.go", "git rev-parse HEAD",
	"git log --since=yesterday --author=me", "git status && git diff --stat", "git log --format='%h %s' -10",
	"ls", "ls -la", "ls -la src", "ls -R docs", "cat go.mod", "cat README.md | head -40", "head -50 main.go", "tail -20 /tmp/test.log",
	"grep -rn TODO src", "grep -rn 'func main' --include='*.go' .", "grep -c error /tmp/test.log", "rg -n 'TODO' src", "rg --files",
	"sed -n 1,20p main.go", "sed -n '100,140p' service.go", "find . -name '*.go' -newer go.mod", "find . -type f -name '*_test.go'",
	"wc -l main.go", "echo done", "echo x > /tmp/out.txt", "pwd", "make test", "make lint", "make build 2>&1 | tail -20",
	"make test > /tmp/test.log 2>&1", "go test ./...", "go test -run TestX -v ./pkg/...", "go test -race -count=1 ./shell",
	"go build ./...", "go vet ./...", "go list -m all", "npm test", "npm run build", "npm run lint -- --fix",
	"jq '.dependencies' package.json", "jq -r .version package.json", "sort /tmp/a | uniq -c", "diff a.txt b.txt", "which go",
	"tree -L 2", "cut -d: -f1 /etc/passwd", "file main.go", "stat go.mod", "du -sh .", "printf '%s\\n' a b", "test -f go.mod && echo yes",
	"[ -d src ] && ls src", "python3 -m pytest -q", "cargo test", "cargo build --release", "git diff | head -100",
	"ls *.go", "wc -l *.go", "cat $FILE", "cd src && ls", "find . -name '*.tmp' -delete", "grep -rl foo . | xargs sed -n 1p",
	"awk '{print $1}' /tmp/a", "git log --oneline | grep fix", "echo $HOME",
}

// TestOrdinaryLinesShare measures how many ordinary lines the fail-closed
// decision still allows under the rules people write
// (docs/shell-policy.md keeps the number).
func TestOrdinaryLinesShare(t *testing.T) {
	d := policy.Decider{Rules: ordinaryRules, Parse: shell.Parse}
	allowed := 0
	for _, line := range ordinaryLines {
		got, err := d.Decide(hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: line, Agent: "api:ci", Home: "/home/u"})
		if err != nil {
			t.Fatal(err)
		}
		if got.Effect == hitl.EffectAllow {
			allowed++
		} else {
			t.Logf("asks: %s  (%s)", line, got.Explain())
		}
	}
	share := float64(allowed) / float64(len(ordinaryLines))
	t.Logf("%d of %d ordinary lines allowed (%.0f%%)", allowed, len(ordinaryLines), 100*share)
	if share < 0.8 {
		t.Errorf("only %.0f%% of ordinary lines are allowed: the policy got too strict for everyday work", 100*share)
	}
}
