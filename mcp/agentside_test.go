package mcp

import (
	"os"
	"path/filepath"
	"testing"

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
		op   policy.Operation
		home string
		cwd  string
		want string
	}{
		{policy.Operation{Type: policy.OpFileWrite, Resource: filepath.Join(dir, "tmp", "link", "authorized_keys")}, "", "", filepath.Join(keys, "authorized_keys")},
		{policy.Operation{Type: policy.OpFileRead, Resource: filepath.Join(dir, "tmp", "link", "id_rsa")}, "", "", filepath.Join(keys, "id_rsa")},
		{policy.Operation{Type: policy.OpFileWrite, Resource: "link/new/x"}, "", filepath.Join(dir, "tmp"), filepath.Join(keys, "new", "x")},
		{policy.Operation{Type: policy.OpFileWrite, Resource: "rel/x"}, "", "", "rel/x"},
		{policy.Operation{Type: policy.OpFileWrite, Resource: filepath.Join(dir, "tmp", "dangling")}, "", "", filepath.Join(keys, "authorized_keys")},
		{policy.Operation{Type: policy.OpFileWrite, Resource: filepath.Join(dir, "tmp", "plain")}, "", "", filepath.Join(dir, "tmp", "plain")},
		{policy.Operation{Type: policy.OpShell, Resource: "cat tmp/link/id_rsa"}, "", "", "cat tmp/link/id_rsa"},
	} {
		got := AgentSide(tc.op, tc.home, tc.cwd)
		assert.Equal(t, tc.want, got.Resource, tc.op.Resource)
	}
	assert.Equal(t, "/home/u", AgentSide(policy.Operation{Type: policy.OpShell}, "/home/u/", "").Home)
	assert.Equal(t, "", AgentSide(policy.Operation{Type: policy.OpShell}, "relative", "").Home, "only an absolute home is sent")
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
	op := AgentSide(policy.Operation{Type: policy.OpShell, Resource: line}, home, dir)
	assert.Equal(t, line, op.Resource, "the line is what runs")
	assert.Equal(t, map[string]string{
		dir + "/tmp/rc":          filepath.Join(home, ".bashrc"),
		dir + "/tmp/keys/id_rsa": filepath.Join(home, ".ssh", "id_rsa"),
	}, op.Paths)

	rules := []policy.Rule{
		{Name: "echo", OpType: policy.OpShell, Resource: "echo", Effect: policy.EffectAllow},
		{Name: "tmp", OpType: policy.OpFileWrite, Resource: dir + "/tmp/*", Effect: policy.EffectAllow},
		{Name: "rc", OpType: policy.OpFileWrite, Resource: "*/.bashrc", Effect: policy.EffectDeny},
	}
	op.Description = "x"
	op.Resource = "echo x > " + dir + "/tmp/rc"
	d, err := policy.Decider{Rules: rules, Parse: shell.Parse}.Decide(op)
	require.NoError(t, err)
	assert.Equal(t, policy.EffectDeny, d.Effect, "%+v", d.Parts)
	op.Paths = nil
	d, err = policy.Decider{Rules: rules, Parse: shell.Parse}.Decide(op)
	require.NoError(t, err)
	assert.Equal(t, policy.EffectAllow, d.Effect, "without the resolved path the link looks like a file in tmp")
}
