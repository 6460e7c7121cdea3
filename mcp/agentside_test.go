package mcp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl"
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
		{hitl.Operation{Type: hitl.OpFileWrite, Resource: filepath.Join(dir, "tmp", "plain")}, "", "", filepath.Join(dir, "tmp", "plain")},
		{hitl.Operation{Type: hitl.OpShell, Resource: "cat tmp/link/id_rsa"}, "", "", "cat tmp/link/id_rsa"},
	} {
		got := AgentSide(tc.op, tc.home, tc.cwd)
		assert.Equal(t, tc.want, got.Resource, tc.op.Resource)
	}
	assert.Equal(t, "/home/u", AgentSide(hitl.Operation{Type: hitl.OpShell}, "/home/u/", "").Home)
	assert.Equal(t, "", AgentSide(hitl.Operation{Type: hitl.OpShell}, "relative", "").Home, "only an absolute home is sent")
}
