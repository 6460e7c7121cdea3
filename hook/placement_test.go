package hook

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResolvePathAsTheKernel: symlinks are replaced where they are met and
// .. is taken after them, as the kernel walks a path; /proc/self/root
// is left to the policy (it is the edge's own).
func TestResolvePathAsTheKernel(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	home := filepath.Join(dir, "home", "u")
	for _, d := range []string{filepath.Join(home, ".ssh"), filepath.Join(home, "proj"), filepath.Join(dir, "deep", "a", "b")} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("key"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(home, "proj", "link-to-key")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "deep", "a", "b"), filepath.Join(home, "proj", "d")))
	require.NoError(t, os.Symlink("../../../home/u/.ssh", filepath.Join(dir, "deep", "a", "b", "rel")))
	for _, tc := range []struct{ p, cwd, want string }{
		{"link-to-key", filepath.Join(home, "proj"), filepath.Join(home, ".ssh", "id_rsa")},
		{"../.ssh/id_rsa", filepath.Join(home, "proj"), filepath.Join(home, ".ssh", "id_rsa")},
		// d/.. is d's target's parent (deep/a), not proj
		{"d/../b/rel/id_rsa", filepath.Join(home, "proj"), filepath.Join(home, ".ssh", "id_rsa")},
		{"d/rel/id_rsa", filepath.Join(home, "proj"), filepath.Join(home, ".ssh", "id_rsa")},
		{"/proc/self/root" + filepath.Join(home, ".ssh", "id_rsa"), "", "/proc/self/root" + filepath.Join(home, ".ssh", "id_rsa")},
		{"/proc/self/cwd/../x", "", "/proc/self/cwd/../x"},
		{filepath.Join(home, "proj", "new", "..", "x"), "", filepath.Join(home, "proj", "x")},
		{"rel/x", "", "rel/x"},
	} {
		assert.Equal(t, tc.want, resolvePath(tc.p, tc.cwd), "%s in %s", tc.p, tc.cwd)
	}
}
