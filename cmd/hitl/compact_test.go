package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// localCLI runs a command that needs no service, with environ as its
// whole environment.
func localCLI(environ map[string]string, args ...string) cliResult {
	var out, errb syncBuffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return environ[k] }}
	code := run(context.Background(), args, e)
	return cliResult{code, out.String(), errb.String()}
}

// prunedDB writes a database that held 400 questions of which retention
// deleted all but one, pending, and returns its path and that question.
func prunedDB(t *testing.T) (string, *hitl.Question) {
	t.Helper()
	o := openOffline(t, "", clocktest.New(time.Now()))
	o.answer(t, o.ask(t, "run-old", 400))
	o.clock.Add(48 * time.Hour)
	keep := o.ask(t, "run-new", 1)[0]
	_, err := o.svc.Questions.Prune(context.Background(), 24*time.Hour)
	require.NoError(t, err)
	o.close(t)
	return o.path, keep
}

// copyFile copies the file at src to dst.
func copyFile(t *testing.T, src, dst string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dst, b, 0o600))
	return dst
}

var compactLine = regexp.MustCompile(`^(.+): ([0-9.]+ (?:B|KiB|MiB|GiB)) → ([0-9.]+ (?:B|KiB|MiB|GiB))\n$`)

func TestCompact(t *testing.T) {
	pruned, keep := prunedDB(t)
	t.Run("a stopped database shrinks, prints both sizes and keeps what is live", func(t *testing.T) {
		path := copyFile(t, pruned, filepath.Join(t.TempDir(), "hitl.db"))
		before := fileSize(t, path)
		r := localCLI(nil, "compact", "--db", path)
		require.Equal(t, exitOK, r.code, r.stderr)
		m := compactLine.FindStringSubmatch(r.stdout)
		require.NotNil(t, m, "output %q", r.stdout)
		after := fileSize(t, path)
		assert.Less(t, after, before)
		assert.Equal(t, []string{path, byteSize(before), byteSize(after)}, m[1:])
		_, err := os.Stat(path + ".compact")
		assert.True(t, os.IsNotExist(err), "no temporary file is left behind")

		db, err := store.Open(path)
		require.NoError(t, err)
		defer func() { require.NoError(t, db.Close()) }()
		require.NoError(t, db.Check())
		got, err := db.Question(context.Background(), keep.ID)
		require.NoError(t, err)
		assert.True(t, got.Pending())
	})
	t.Run("without --db it compacts HITL_DB, like serve", func(t *testing.T) {
		path := copyFile(t, pruned, filepath.Join(t.TempDir(), "env.db"))
		r := localCLI(map[string]string{"HITL_DB": path}, "compact")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.True(t, strings.HasPrefix(r.stdout, path+": "), r.stdout)
	})
	t.Run("without --db or HITL_DB it compacts the config file's db", func(t *testing.T) {
		dir := t.TempDir()
		path := copyFile(t, pruned, filepath.Join(dir, "from-config.db"))
		cfg := filepath.Join(dir, "hitl.yaml")
		require.NoError(t, os.WriteFile(cfg, []byte("db: "+path+"\n"), 0o600))
		r := localCLI(nil, "compact", "--config", cfg)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.True(t, strings.HasPrefix(r.stdout, path+": "), r.stdout)
	})
	t.Run("a missing file exits 7 and is not created", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "nope.db")
		r := localCLI(nil, "compact", "--db", path)
		assert.Equal(t, exitNotFound, r.code, r.stderr)
		assert.Contains(t, r.stderr, "nope.db")
		assert.Empty(t, r.stdout)
		_, err := os.Stat(path)
		assert.True(t, os.IsNotExist(err))
	})
	t.Run("a file that is not a database exits 1 and is left alone", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "notes.txt")
		require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("not bbolt\n", 1000)), 0o600))
		r := localCLI(nil, "compact", "--db", path)
		assert.Equal(t, exitFailure, r.code, r.stderr)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, strings.Repeat("not bbolt\n", 1000), string(b))
	})
	t.Run("a positional argument is a usage error", func(t *testing.T) {
		r := localCLI(nil, "compact", "hitl.db")
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, "--db")
	})
}

func TestCompactRunningService(t *testing.T) {
	t.Parallel() // waits out the store's 1 s lock timeout alongside other tests
	m := startMain(t)
	before := fileSize(t, m.Config.DB)
	r := localCLI(nil, "compact", "--db", m.Config.DB)
	t.Run("a running service's file exits 1 and says to stop it first", func(t *testing.T) {
		assert.Equal(t, exitCode(fault.Errorf(fault.EUNAVAILABLE, "")), r.code, r.stderr)
		assert.Equal(t, exitFailure, r.code)
		assert.Contains(t, r.stderr, "stop the service first")
		assert.Empty(t, r.stdout)
	})
	t.Run("the service keeps working on its file", func(t *testing.T) {
		assert.Equal(t, before, fileSize(t, m.Config.DB))
		assert.Equal(t, exitOK, cli(context.Background(), m, "", "pending").code)
	})
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		12_998_000: "12.4 MiB", 1 << 30: "1.0 GiB", 1<<62 + 1<<61: "6.0 EiB",
	} {
		assert.Equal(t, want, byteSize(n), "%d bytes", n)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st.Size()
}
