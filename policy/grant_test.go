package policy_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// grantRules protect keys from reading: the grant must say so.
var grantRules = []hitl.Rule{
	{Name: "no-ssh", OpType: hitl.OpFileRead, Resource: "~/.ssh/*", Effect: hitl.EffectDeny},
	{Name: "no-aws", OpType: hitl.OpFileRead, Resource: "/home/u/.aws", Effect: hitl.EffectDeny},
	{Name: "no-pem", OpType: hitl.OpFileRead, Resource: "*.pem", Effect: hitl.EffectDeny},
	{Name: "no-rm", OpType: hitl.OpShell, Resource: "rm -rf *", Effect: hitl.EffectDeny},
	{Name: "tmp", OpType: hitl.OpFileWrite, Resource: "/tmp/*", Effect: hitl.EffectAllow},
}

func grantOf(t *testing.T, line string) *hitl.CommandGrant {
	t.Helper()
	d := policy.Decider{Rules: grantRules, Parse: shell.Parse}
	dec, err := d.Decide(hitl.Operation{Type: hitl.OpShell, Resource: line, Home: "/home/u"})
	require.NoError(t, err)
	require.NotNil(t, dec.Grant, "every shell line that parses has a grant")
	return dec.Grant
}

func TestGrant(t *testing.T) {
	for _, tc := range []struct {
		name, line, text string
		exec, write, net []string
	}{
		{name: "one read-only command runs its program and writes nothing", line: "git status",
			text: "may run git (with git's helpers); may write nothing; may not read /home/u/.ssh, /home/u/.aws; no network", exec: []string{"git"}},
		{name: "every command of a compound line is granted", line: "ls -la && grep -rn foo . | head -5",
			exec: []string{"ls", "grep", "head"}},
		{name: "builtins are no programs", line: "cd src && echo hi && pwd", exec: []string{}},
		{name: "a redirection's file is written", line: "sort a.txt > /tmp/out.txt 2>/dev/null",
			exec: []string{"sort"}, write: []string{"/tmp/out.txt"}},
		{name: "an option's file is written, ~ expanded", line: "sort -o ~/sorted.txt a.txt", exec: []string{"sort"}, write: []string{"/home/u/sorted.txt"}},
		{name: "tee's operands are written, .. cleaned", line: "echo x | tee a/../b.txt", exec: []string{"tee"}, write: []string{"b.txt"}},
		{name: "env CMD runs env and CMD", line: "env ls", exec: []string{"env", "ls"}},
		{name: "a computed program runs nothing", line: "$X status; ls", exec: []string{"ls"}},
		{name: "a hidden command in a substitution is visible to the grant", line: "echo $(id)", exec: []string{"id"}},
		{name: "curl reaches its URL's host and port", line: "curl -s https://example.com/x", exec: []string{"curl"}, net: []string{"example.com:443"}},
		{name: "a write to the terminal is no file", line: "ls > /dev/null", exec: []string{"ls"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := grantOf(t, tc.line)
			assert.Equal(t, tc.exec, g.Exec)
			if tc.write == nil {
				tc.write = []string{}
			}
			assert.Equal(t, tc.write, g.Write)
			assert.Equal(t, tc.net, g.Net)
			assert.Equal(t, []string{"/home/u/.ssh", "/home/u/.aws"}, g.DenyRead, "deny rules that name paths")
			assert.Equal(t, []string{"no-pem (*.pem)"}, g.Unenforced, "a pattern the kernel cannot be told")
			if tc.text != "" {
				assert.Equal(t, tc.text, g.Text())
			}
		})
	}
	t.Run("no grant for what is not a shell line, or does not parse", func(t *testing.T) {
		d := policy.Decider{Parse: shell.Parse}
		dec, err := d.Decide(hitl.Operation{Type: hitl.OpFileRead, Resource: "/x"})
		require.NoError(t, err)
		assert.Nil(t, dec.Grant)
		dec, err = d.Decide(hitl.Operation{Type: hitl.OpShell, Resource: "echo 'unclosed"})
		require.NoError(t, err)
		assert.Nil(t, dec.Grant)
	})
}

// TestGrantAdds has a row for each row of grantAdds: the everyday
// command it is for gets it, with its reason.
func TestGrantAdds(t *testing.T) {
	rows := []struct {
		line, label string
		exec, write []string
	}{
		{"git log --oneline -3", "git's helpers", []string{"{gitexec}"}, nil},
		{"git commit -m x", "the repository's .git", nil, []string{"{gitdir}"}},
		{"git checkout main", "the working tree", nil, []string{"{worktree}"}},
		{"git fetch origin", "the remote", nil, nil},
		{"go test ./...", "go's toolchain, build cache and temporary directory", []string{"{gotool}", "{tmp}"}, []string{"{gocache}", "{tmp}"}},
		{"npm test", "the package's scripts", []string{"sh", "node", "{scripts}", "{worktree}/node_modules/.bin"}, []string{"{npmcache}"}},
		{"make test", "the Makefile's recipes", []string{"sh", "{scripts}"}, nil},
	}
	require.Len(t, rows, policy.GrantAddRows(), "a row here for each row of grantAdds")
	for _, r := range rows {
		t.Run(r.line, func(t *testing.T) {
			g := grantOf(t, r.line)
			var found *hitl.GrantAdd
			for i := range g.Adds {
				if g.Adds[i].Label == r.label {
					found = &g.Adds[i]
				}
			}
			require.NotNil(t, found, "%s adds %q: %+v", r.line, r.label, g.Adds)
			assert.Equal(t, r.exec, found.Exec)
			assert.Equal(t, r.write, found.Write)
			assert.NotEmpty(t, found.Why)
			assert.Contains(t, g.Text(), r.label, "the person sees it")
		})
	}
	t.Run("a read-only git subcommand writes nothing of the repository", func(t *testing.T) {
		for _, a := range grantOf(t, "git -C sub status").Adds {
			assert.Empty(t, a.Write, "%+v", a)
		}
	})
}
