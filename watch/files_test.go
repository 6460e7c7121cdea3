package watch

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// layout makes root/.delta/interaction (or what mk makes of it) and
// returns root and a directory elsewhere, for links to point at.
func layout(t *testing.T) (root, elsewhere string) {
	t.Helper()
	root, elsewhere = t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, InteractionDir), 0o755))
	return root, elsewhere
}

func interaction(root string) string { return filepath.Join(root, InteractionDir) }

// relink replaces path by a symbolic link to target.
func relink(t *testing.T, path, target string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(path))
	require.NoError(t, os.Symlink(target, path))
}

const goodRequest = `{"prompt":"Which database?","input_type":"text"}`

// TestReadRequest: request.json is read only when it is a regular file
// of at most MaxRequestFile bytes reached without a symbolic link; a
// FIFO is refused at once, not waited on.
func TestReadRequest(t *testing.T) {
	for _, c := range []struct {
		name    string
		mk      func(t *testing.T, root, elsewhere string)
		refused string // "": read
	}{
		{"a regular file", func(t *testing.T, root, _ string) {
			require.NoError(t, os.WriteFile(filepath.Join(interaction(root), RequestFile), []byte(goodRequest), 0o644))
		}, ""},
		{"exactly the limit", func(t *testing.T, root, _ string) {
			b := goodRequest + strings.Repeat(" ", MaxRequestFile-len(goodRequest))
			require.NoError(t, os.WriteFile(filepath.Join(interaction(root), RequestFile), []byte(b), 0o644))
		}, ""},
		{"one byte over the limit", func(t *testing.T, root, _ string) {
			b := goodRequest + strings.Repeat(" ", MaxRequestFile+1-len(goodRequest))
			require.NoError(t, os.WriteFile(filepath.Join(interaction(root), RequestFile), []byte(b), 0o644))
		}, "is larger than 65536 bytes"},
		{"request.json a link to a file", func(t *testing.T, root, elsewhere string) {
			require.NoError(t, os.WriteFile(filepath.Join(elsewhere, "secret.json"), []byte(goodRequest), 0o644))
			relink(t, filepath.Join(interaction(root), RequestFile), filepath.Join(elsewhere, "secret.json"))
		}, "request.json is a symbolic link"},
		{"interaction a link to a directory", func(t *testing.T, root, elsewhere string) {
			require.NoError(t, os.WriteFile(filepath.Join(elsewhere, RequestFile), []byte(goodRequest), 0o644))
			relink(t, interaction(root), elsewhere)
		}, "interaction is a symbolic link"},
		{".delta a link to a directory", func(t *testing.T, root, elsewhere string) {
			require.NoError(t, os.MkdirAll(filepath.Join(elsewhere, "interaction"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(elsewhere, "interaction", RequestFile), []byte(goodRequest), 0o644))
			relink(t, filepath.Join(root, ".delta"), elsewhere)
		}, ".delta is a symbolic link"},
		{"interaction a file", func(t *testing.T, root, _ string) {
			require.NoError(t, os.RemoveAll(interaction(root)))
			require.NoError(t, os.WriteFile(interaction(root), []byte(goodRequest), 0o644))
		}, "interaction is not a directory"},
		{"a FIFO", func(t *testing.T, root, _ string) {
			require.NoError(t, syscall.Mkfifo(filepath.Join(interaction(root), RequestFile), 0o644))
		}, "is not a regular file (p"},
		{"a directory", func(t *testing.T, root, _ string) {
			require.NoError(t, os.Mkdir(filepath.Join(interaction(root), RequestFile), 0o755))
		}, "is not a regular file (d"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, elsewhere := layout(t)
			c.mk(t, root, elsewhere)
			b, err := readRequest(root)
			if c.refused == "" {
				require.NoError(t, err)
				assert.True(t, strings.HasPrefix(string(b), goodRequest))
				return
			}
			var refused *refusedError
			require.ErrorAs(t, err, &refused)
			assert.Contains(t, refused.why, c.refused)
			assert.Nil(t, b)
		})
	}
	t.Run("missing at any level is not there", func(t *testing.T) {
		root := t.TempDir()
		for _, mk := range []string{"", ".delta", InteractionDir} {
			if mk != "" {
				require.NoError(t, os.MkdirAll(filepath.Join(root, mk), 0o755))
			}
			_, err := readRequest(root)
			assert.ErrorIs(t, err, os.ErrNotExist, "with %q", mk)
		}
	})
}

// TestWriteResponse: response.txt is written as a new file renamed into
// the interaction directory, never through a symbolic link on the way
// or at response.txt.
func TestWriteResponse(t *testing.T) {
	t.Run("written whole, 0600, nothing left behind", func(t *testing.T) {
		root, _ := layout(t)
		require.NoError(t, writeResponse(root, "production"))
		path := filepath.Join(interaction(root), ResponseFile)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "production", string(b))
		fi, err := os.Lstat(path)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode())
		assertOnly(t, interaction(root), ResponseFile)
	})
	t.Run("a link at response.txt is replaced, its target untouched", func(t *testing.T) {
		root, elsewhere := layout(t)
		target := filepath.Join(elsewhere, "authorized_keys")
		require.NoError(t, os.WriteFile(target, []byte("keep"), 0o600))
		relink(t, filepath.Join(interaction(root), ResponseFile), target)
		require.NoError(t, writeResponse(root, "ssh-ed25519 AAAA attacker"))
		b, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, "keep", string(b))
		fi, err := os.Lstat(filepath.Join(interaction(root), ResponseFile))
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular())
	})
	for _, c := range []struct {
		name string
		link func(t *testing.T, root, elsewhere string)
	}{
		{"interaction a link", func(t *testing.T, root, elsewhere string) { relink(t, interaction(root), elsewhere) }},
		{".delta a link", func(t *testing.T, root, elsewhere string) {
			require.NoError(t, os.Mkdir(filepath.Join(elsewhere, "interaction"), 0o755))
			relink(t, filepath.Join(root, ".delta"), elsewhere)
		}},
	} {
		t.Run(c.name+": refused, nothing written there", func(t *testing.T) {
			root, elsewhere := layout(t)
			c.link(t, root, elsewhere)
			err := writeResponse(root, "production")
			var refused *refusedError
			require.ErrorAs(t, err, &refused)
			assert.Contains(t, refused.why, "is a symbolic link")
			assert.NotContains(t, err.Error(), "production", "errors never quote the answer")
			found := 0
			require.NoError(t, filepath.WalkDir(elsewhere, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					found++
				}
				return err
			}))
			assert.Zero(t, found, "no file written through the link")
		})
	}
}

// assertOnly checks that dir holds exactly names.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, names, got)
}
