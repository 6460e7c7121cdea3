package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/require"
)

// benchPolicy is a configured policy of a dozen rules, as README's.
var benchPolicy = []hitl.Rule{
	{Name: "no-root-wipe", OpType: hitl.OpShell, Resource: "rm -rf /", Effect: hitl.EffectDeny},
	{Name: "no-curl", OpType: hitl.OpShell, Resource: "curl *", Effect: hitl.EffectDeny},
	{Name: "deploys", OpType: hitl.OpShell, Resource: "make deploy", Effect: hitl.EffectAsk, Approvers: []string{"U0A", "U0B"}, Quorum: 2},
	{Name: "safe-git", OpType: hitl.OpShell, Resource: "git status", Effect: hitl.EffectAllow},
	{Name: "git-log", OpType: hitl.OpShell, Resource: "git log", Effect: hitl.EffectAllow},
	{Name: "git-diff", OpType: hitl.OpShell, Resource: "git diff", Effect: hitl.EffectAllow},
	{Name: "ls", OpType: hitl.OpShell, Resource: "ls", Effect: hitl.EffectAllow},
	{Name: "grep", OpType: hitl.OpShell, Resource: "grep", Effect: hitl.EffectAllow},
	{Name: "go-test", OpType: hitl.OpShell, Resource: "go test *", Effect: hitl.EffectAllow},
	{Name: "tmp-writes", OpType: hitl.OpFileWrite, Resource: "/tmp/*", Effect: hitl.EffectAllow},
	{Name: "no-etc-writes", OpType: hitl.OpFileWrite, Resource: "/etc/*", Effect: hitl.EffectDeny},
	{Name: "no-key-reads", OpType: hitl.OpFileRead, Resource: "*/.ssh/*", Effect: hitl.EffectDeny},
}

// compoundLine is a command line of about n characters: allowed commands
// joined by && and pipes, with substitutions and a redirection, ending in
// one learned command (so every part is looked up and all are allowed).
func compoundLine(n int) string {
	parts := []string{"git status --short", "git log --oneline -n 5 | grep fix", "ls -la ./cmd",
		"go test ./pkg/... > /tmp/test.log 2>&1", "grep -r TODO . | grep -v vendor"}
	var b strings.Builder
	for i := 0; b.Len() < n-40; i++ {
		if i > 0 {
			b.WriteString(" && ")
		}
		b.WriteString(parts[i%len(parts)])
	}
	b.WriteString(" && go vet ./cmd/learned")
	return b.String()
}

// BenchmarkPolicyDecision measures Service.Decide through the bbolt
// store: a 1,000-character compound command (parsed, each of its parts
// decided, learned rules looked up), and one command allowed by a learned
// rule with 100 and with 100,000 learned rules stored. It leaves out HTTP
// and the audit event an approval request appends.
func BenchmarkPolicyDecision(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		db, err := Open(filepath.Join(b.TempDir(), "hitl.db"))
		require.NoError(b, err)
		loadLearned(b, db, n)
		now := time.Now()
		ctx := principaltest.As(context.Background(), "api:bench")
		require.NoError(b, db.PutLearnedRule(ctx, &hitl.LearnedRule{ID: "r_bench", Agent: "api:bench", OpType: hitl.OpShell,
			Resource: "go vet ./cmd/learned", CreatedBy: "slack:U0A", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}))
		svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New(), ParseCommand: shell.Parse})
		require.NoError(b, svc.Policies.LoadPolicy(ctx, benchPolicy))
		for _, tc := range []struct {
			name string
			line string
		}{
			{"compound_1000_chars", compoundLine(1000)},
			{"one_learned_command", "go vet ./cmd/learned"},
		} {
			op := hitl.Operation{Type: hitl.OpShell, Description: "bench", Resource: tc.line}
			d, err := svc.Policies.Decide(ctx, op)
			require.NoError(b, err)
			require.Equal(b, hitl.EffectAllow, d.Effect, "%s: %+v", tc.line, d.Parts)
			b.Run(fmt.Sprintf("%s/learned=%d", tc.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := svc.Policies.Decide(ctx, op); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		require.NoError(b, db.Close())
	}
}
