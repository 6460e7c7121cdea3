package policy_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// placementRules: read-only allows, a key deny and a two-person rule on
// production data, as a team writes them.
var placementRules = []hitl.Rule{
	{Name: "keys", OpType: hitl.OpFileRead, Resource: "/home/*/.ssh/*", Effect: deny},
	{Name: "prod", OpType: hitl.OpFileRead, Resource: "/srv/prod/*", Effect: ask, Approvers: []string{"U0A", "U0B"}, Quorum: 2},
	{Name: "proj", OpType: hitl.OpFileRead, Resource: "/home/u/proj/*", Effect: allow},
	{Name: "cat", OpType: hitl.OpShell, Resource: "cat", Effect: allow},
	{Name: "grep", OpType: hitl.OpShell, Resource: "grep", Effect: allow},
	{Name: "rg", OpType: hitl.OpShell, Resource: "rg", Effect: allow},
	{Name: "find", OpType: hitl.OpShell, Resource: "find", Effect: allow},
	{Name: "diff", OpType: hitl.OpShell, Resource: "git diff", Effect: allow},
	{Name: "cp", OpType: hitl.OpShell, Resource: "cp", Effect: allow},
	{Name: "cd", OpType: hitl.OpShell, Resource: "cd", Effect: allow},
}

// TestPathsAsTheKernelResolvesThem: operands and redirections are placed
// in the line's working directory and its cd's, read as the edge resolved
// them, aliases through /proc and the directory stack are never allowed,
// and a recursive read meets every rule beneath its directory. Every
// attack line of issue 31 is denied or asked under a key deny.
func TestPathsAsTheKernelResolvesThem(t *testing.T) {
	const proj = "/home/u/proj"
	for _, tc := range []struct {
		line, cwd string
		paths     map[string]string // what the edge resolved
		fold      bool
		effect    hitl.Effect
		rule      string
	}{
		// operands placed in the working directory
		{"cat ../.ssh/id_rsa", proj, nil, false, deny, "keys"},
		{"cat ../.ssh/id_rsa", "", nil, false, ask, "default"}, // climbs out of a directory nobody sent
		{"cat < ../.ssh/id_rsa", proj, nil, false, deny, "keys"},
		{"cat README.md", proj, nil, false, allow, "cat"},
		// a working directory nobody sent: a relative path may be any
		// file of its name, so it asks where a friction rule could match
		// it, with the strictest such rule's people (here prod's two)
		{"cat README.md", "", nil, false, ask, "prod"},
		{"cat < README.md", "", nil, false, ask, "prod"},
		{"grep -r TODO", "", nil, false, ask, "prod"},
		{"grep TODO", "", nil, false, allow, "grep"}, // the pattern names no file; grep reads its input
		{"cat /home/u/proj/README.md", "", nil, false, allow, "cat"},
		// grep -r PATTERN and find with no starting point read the
		// working directory; -R, find -L follow links beneath it
		{"grep -r key", "/home/u", nil, false, deny, "keys"},
		{"grep -rn TODO", proj, nil, false, allow, "grep"},
		{"find -name id_rsa", "/home/u", nil, false, deny, "keys"},
		{"find", "/home/u", nil, false, deny, "keys"},
		{"grep -R TODO .", proj, nil, false, ask, "prod"},
		{"grep --dereference-recursive TODO", proj, nil, false, ask, "prod"},
		{"find -L . -name x", proj, nil, false, ask, "prod"},
		{"rg -L TODO", proj, nil, false, ask, "prod"},
		{"cat ./../../u/.ssh/./id_rsa", proj, nil, false, deny, "keys"},
		// aliases the policy cannot place
		{"cat /proc/self/root/home/u/.ssh/id_rsa", proj, nil, false, ask, "default"},
		{"cat /proc/self/root/home/u/.ssh/id_rsa", proj, map[string]string{"/proc/self/root/home/u/.ssh/id_rsa": "/home/u/.ssh/id_rsa"}, false, deny, "keys"},
		{"cat /proc/self/cwd/../.ssh/id_rsa", proj, nil, false, ask, "default"},
		{"cat /proc/thread-self/cwd/x", proj, nil, false, ask, "default"},
		{"cat /proc/4242/root/etc/shadow", proj, nil, false, ask, "default"},
		{"cat /proc/self/task/7/root/etc/shadow", proj, nil, false, ask, "default"},
		{"cat /dev/fd/3", proj, nil, false, ask, "default"},
		{"cat < /proc/self/fd/9", proj, nil, false, ask, "default"},
		{"cat proc/self/root/etc/shadow", "/", nil, false, ask, "default"},
		{"cat /proc/cpuinfo", proj, nil, false, allow, "cat"},
		{"cat /dev/null", proj, nil, false, allow, "cat"},
		// the directory stack is not a user
		// ~0 is the directory stack: a computed word (shell), never allowed
		{"cat ~0/../.ssh/id_rsa", proj, nil, false, ask, "default"},
		{"cat ~0/../.ssh/id_rsa", "", nil, false, ask, "default"},
		{"cat ~+/README.md", proj, nil, false, ask, "default"},
		{"cat ~-/x", proj, nil, false, ask, "default"},
		{"cat ~2/x", proj, nil, false, ask, "default"},
		// symlinks, as the edge resolved them
		{"cat link-to-key", proj, map[string]string{proj + "/link-to-key": "/home/u/.ssh/id_rsa"}, false, deny, "keys"},
		{"cat link-to-key", proj, nil, false, allow, "cat"},
		{"cat d/../x", proj, map[string]string{proj + "/d/../x": "/home/u/.ssh/x"}, false, deny, "keys"},
		// lines that change directory
		{"cd ~/.ssh && cat id_rsa", proj, nil, false, deny, "keys"},
		// cd DIR && …: every later command starts in DIR, so DIR places
		// them even when nobody sent the working directory
		{"cd ~/.ssh && cat id_rsa", "", nil, false, deny, "keys"},
		{"cd /home/u && cat .ssh/id_rsa", "", nil, false, deny, "keys"},
		{"cd /tmp && cat notes && cat b", "", nil, false, allow, "cd, cat"},
		{"cd /tmp && cat notes | grep -c x", "", nil, false, allow, "cd, cat, grep"},
		// … but not where a command may run after the cd failed, or runs before it
		{"cd /tmp || cat notes", "", nil, false, ask, "default"},
		{"cd /tmp; cat notes", "", nil, false, ask, "default"},
		{"! cd /tmp && cat notes", "", nil, false, ask, "default"},
		{"cd /tmp && cat a || cat notes", "", nil, false, ask, "default"},
		{"cat notes && cd /tmp", "", nil, false, ask, "default"},
		{"CDPATH=/x cd /tmp && cat notes", "", nil, false, ask, "default"},
		{"cd /tmp < notes && cat b", "", nil, false, ask, "default"}, // the redirection opens where the line starts
		{"cd ~/.ssh; cat < id_rsa", proj, nil, false, deny, "keys"},
		{"cd ../.ssh && cat id_rsa", proj, nil, false, deny, "keys"},
		{"cd .ssh && cat id_rsa", "/home/u", nil, false, ask, "default"}, // CDPATH may move it anywhere
		{"cd - && cat id_rsa", proj, nil, false, ask, "default"},
		{"cd /tmp && cat notes", proj, nil, false, allow, "cd, cat"},
		// recursive reads meet every rule beneath their directory
		{"grep -r '' ~/.ssh", proj, nil, false, deny, "keys"},
		{"grep -rn key ~", proj, nil, false, deny, "keys"},
		{"grep -R key ..", proj, nil, false, deny, "keys"},
		{"grep --recursive key /home", proj, nil, false, deny, "keys"},
		{"grep key ~/.ssh", proj, nil, false, allow, "grep"}, // not recursive: a directory is not read
		{"grep -rn TODO src", proj, nil, false, allow, "grep"},
		{"grep -rn TODO .", proj, nil, false, allow, "grep"},
		{"rg key /home/u", proj, nil, false, deny, "keys"},
		{"find / -name id_rsa", proj, nil, false, deny, "keys"},
		{"find . -name '*.go'", proj, nil, false, allow, "find"},
		{"git diff --no-index /home/u/.ssh /tmp/x", proj, nil, false, deny, "keys"},
		{"cp -r /home/u /tmp/copy", proj, nil, false, deny, "keys"},
		{"grep -r x /srv", proj, nil, false, ask, "prod"},
		// a filesystem that folds case, as the edge says
		{"cat ~/.SSH/ID_RSA", proj, nil, true, deny, "keys"},
		{"cat ~/.SSH/ID_RSA", proj, nil, false, allow, "cat"},
	} {
		t.Run(tc.line+" in "+tc.cwd, func(t *testing.T) {
			op := hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: tc.line, Agent: "api:ci", Home: "/home/u", Cwd: tc.cwd, Paths: tc.paths, FoldCase: tc.fold}
			require.NoError(t, policy.ValidateOperation(&op))
			d, err := policy.Decider{Rules: placementRules, Parse: shell.Parse}.Decide(op)
			require.NoError(t, err)
			assert.Equal(t, tc.effect, d.Effect, "%+v", d.Parts)
			assert.Equal(t, tc.rule, d.Rule, "%+v", d.Parts)
			if tc.effect != allow {
				assert.False(t, d.Learnable)
			}
		})
	}
}

// TestRecursiveFileReads: Claude Code's Grep and Glob read everything
// beneath their path: a rule beneath it decides the whole read.
func TestRecursiveFileReads(t *testing.T) {
	for _, tc := range []struct {
		path, cwd string
		recursive bool
		effect    hitl.Effect
		rule      string
	}{
		{"/home/u/.ssh", "", true, deny, "keys"},
		{"~/.ssh", "", true, deny, "keys"},
		{"/home/u", "", true, deny, "keys"},
		{"/", "", true, deny, "keys"},
		{"..", "/home/u/proj", true, deny, "keys"},
		{"/home/u/proj/src", "", true, allow, "proj"},
		{"/home/u", "", false, allow, "default"},
		{"/srv", "", true, ask, "prod"},
		{"/proc/self/root/home/u", "", true, ask, "default"},
		// relative, and nobody sent the working directory (unplaced.go)
		{"id_rsa", "", false, ask, "prod"},
		{"src", "", true, ask, "prod"},
	} {
		op := hitl.Operation{Type: hitl.OpFileRead, Description: "Grep", Resource: tc.path, Home: "/home/u", Cwd: tc.cwd, Recursive: tc.recursive, Agent: "api:ci"}
		d, err := policy.Decider{Rules: placementRules, Parse: shell.Parse}.Decide(op)
		require.NoError(t, err)
		assert.Equal(t, tc.effect, d.Effect, "%s recursive=%v", tc.path, tc.recursive)
		assert.Equal(t, tc.rule, d.Rule, "%s", tc.path)
	}
}
