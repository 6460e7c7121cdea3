package hook

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAgentSide: the hooks send the agent's home and decide a file
// operation on the path its symlinks lead to.
func TestAgentSide(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	keys := filepath.Join(dir, "home", ".ssh")
	require.NoError(t, os.MkdirAll(keys, 0o700))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tmp"), 0o755))
	require.NoError(t, os.Symlink(keys, filepath.Join(dir, "tmp", "link")))
	require.NoError(t, os.Symlink(filepath.Join(keys, "authorized_keys"), filepath.Join(dir, "tmp", "dangling")))
	for _, tc := range []struct {
		op   hitl.Operation
		home string
		cwd  string
		want string
	}{
		{hitl.Operation{Type: hitl.OpFileWrite, Resource: filepath.Join(dir, "tmp", "link", "authorized_keys")}, "", "", filepath.Join(keys, "authorized_keys")},
		{hitl.Operation{Type: hitl.OpFileRead, Resource: filepath.Join(dir, "tmp", "link", "id_rsa")}, "", "", filepath.Join(keys, "id_rsa")},
		{hitl.Operation{Type: hitl.OpFileWrite, Resource: "link/new/x"}, "", filepath.Join(dir, "tmp"), filepath.Join(keys, "new", "x")},
		{hitl.Operation{Type: hitl.OpFileWrite, Resource: "rel/x"}, "", "", "rel/x"},
		{hitl.Operation{Type: hitl.OpFileWrite, Resource: filepath.Join(dir, "tmp", "dangling")}, "", "", filepath.Join(keys, "authorized_keys")},
		{hitl.Operation{Type: hitl.OpFileWrite, Resource: filepath.Join(dir, "tmp", "plain")}, "", "", filepath.Join(dir, "tmp", "plain")},
		{hitl.Operation{Type: hitl.OpShell, Resource: "cat tmp/link/id_rsa"}, "", "", "cat tmp/link/id_rsa"},
	} {
		got := AgentSide(tc.op, tc.home, tc.cwd)
		assert.Equal(t, tc.want, got.Resource, tc.op.Resource)
	}
	assert.Equal(t, "/home/u", AgentSide(hitl.Operation{Type: hitl.OpShell}, "/home/u/", "").Home)
	assert.Equal(t, "", AgentSide(hitl.Operation{Type: hitl.OpShell}, "relative", "").Home, "only an absolute home is sent")
}

// TestAgentSideEditThroughALink: an Edit through a symlinked directory is
// decided on the file it leads to, and its diff (which names the file as
// the agent did) is still the operation's: the service accepts it.
func TestAgentSideEditThroughALink(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	real := filepath.Join(dir, "private", "tmp")
	require.NoError(t, os.MkdirAll(real, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(real, "x.txt"), []byte("a\n"), 0o644))
	require.NoError(t, os.Symlink(real, filepath.Join(dir, "tmp")))
	for _, path := range []string{filepath.Join(dir, "tmp", "x.txt"), "x.txt"} {
		call := ToolCall{Tool: "Edit", Input: map[string]any{"file_path": path, "old_string": "a", "new_string": "b"}}
		op := AgentSide(call.OperationAt("ctx", filepath.Join(dir, "tmp"), ReadLocal), "", filepath.Join(dir, "tmp"))
		assert.Equal(t, filepath.Join(real, "x.txt"), op.Resource)
		require.Len(t, op.Diffs, 1)
		assert.Equal(t, filepath.Join(dir, "tmp", "x.txt"), op.Diffs[0].Path)
		require.NoError(t, policy.ValidateOperation(&op), path)
	}
}

// TestAgentSideCommandLine: a command line is sent as it is, with where
// its files really are; the decision uses that.
func TestAgentSideCommandLine(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	home := filepath.Join(dir, "home")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tmp"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(home, ".bashrc"), filepath.Join(dir, "tmp", "rc")))
	require.NoError(t, os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(dir, "tmp", "keys")))
	line := "echo x > " + dir + "/tmp/rc; cat < tmp/keys/id_rsa; sort -o ~/out f; ls > " + dir + "/tmp/plain"
	op := AgentSide(hitl.Operation{Type: hitl.OpShell, Resource: line}, home, dir)
	assert.Equal(t, line, op.Resource, "the line is what runs")
	assert.Equal(t, map[string]string{
		dir + "/tmp/rc":          filepath.Join(home, ".bashrc"),
		dir + "/tmp/keys/id_rsa": filepath.Join(home, ".ssh", "id_rsa"),
	}, op.Paths)

	rules := []hitl.Rule{
		{Name: "echo", OpType: hitl.OpShell, Resource: "echo", Effect: hitl.EffectAllow},
		{Name: "tmp", OpType: hitl.OpFileWrite, Resource: dir + "/tmp/*", Effect: hitl.EffectAllow},
		{Name: "rc", OpType: hitl.OpFileWrite, Resource: "*/.bashrc", Effect: hitl.EffectDeny},
	}
	op.Description = "x"
	op.Resource = "echo x > " + dir + "/tmp/rc"
	d, err := policy.Decider{Rules: rules, Parse: shell.Parse}.Decide(op)
	require.NoError(t, err)
	assert.Equal(t, hitl.EffectDeny, d.Effect, "%+v", d.Parts)
	op.Paths = nil
	d, err = policy.Decider{Rules: rules, Parse: shell.Parse}.Decide(op)
	require.NoError(t, err)
	assert.Equal(t, hitl.EffectAllow, d.Effect, "without the resolved path the link looks like a file in tmp")
}
