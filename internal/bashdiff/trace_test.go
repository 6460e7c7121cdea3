package bashdiff

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParse reads strace's log: calls that succeeded, an unfinished call
// joined with its resumption, relative paths placed in each process's
// directory (followed through chdir and clone), bash's own execve left out.
func TestParse(t *testing.T) {
	log := `100 execve("/usr/bin/bash", ["bash", "-c", "x"], 0x1 /* 3 vars */) = 0
100 openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3
100 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 openat(AT_FDCWD, "out.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3
101 execve("/usr/bin/ls", ["ls"], 0x2 /* 3 vars */) = 0
101 execve("/usr/bin/cat", ["cat", "a b", "c\"d"], 0x2 /* 3 vars */) = 0
100 chdir("sub") = 0
100 clone(child_stack=NULL, flags=SIGCHLD) = 102
102 openat(AT_FDCWD, "a\"b", O_WRONLY|O_APPEND <unfinished ...>
100 openat(AT_FDCWD, "/tmp/x", O_RDONLY) = 3
102 <... openat resumed>) = 4
102 execve("/usr/bin/touch", ["touch", "P"], 0x3 /* 3 vars */) = -1 ENOENT (No such file or directory)
102 unlinkat(AT_FDCWD, "../gone", 0) = 0
102 renameat2(AT_FDCWD, "/box/a", AT_FDCWD, "/box/b", 0) = 0
102 openat(AT_FDCWD, "failed", O_WRONLY|O_CREAT, 0666) = -1 EACCES (Permission denied)
102 connect(3, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 ENETUNREACH (Network is unreachable)
103 openat(AT_FDCWD</box/proj>, "link-to-key", O_RDONLY) = 3</box/home/.ssh/id_rsa>
103 openat(AT_FDCWD</box/proj>, "w/n", O_WRONLY|O_CREAT, 0666) = 4</box/proj/w/n>
103 openat(AT_FDCWD</box/proj>, "rel", O_RDONLY) = 5
103 openat(AT_FDCWD</box/proj>, "w/y.tx\\t", O_WRONLY|O_CREAT, 0666) = 6</box/proj/w/y.tx\\t>
102 connect(4, {sa_family=AF_UNIX, sun_path="/run/x"}, 110) = -1 ENOENT (No such file or directory)
`
	tr, err := parse([]byte(log), "/box", "/box/tmp/strace.log")
	require.NoError(t, err)
	assert.Equal(t, []string{"/usr/bin/ls", "/usr/bin/cat"}, tr.Execs)
	assert.Equal(t, [][]string{{}, {"a b", `c"d`}}, tr.Args)
	assert.Equal(t, []string{"/etc/ld.so.cache", "/tmp/x", "/box/home/.ssh/id_rsa", "/box/proj/rel"}, tr.Reads,
		"a file opened is the one the kernel resolved (strace -y), relative ones in the directory strace names")
	assert.Len(t, tr.Connects, 1, "an internet connect is recorded even when it fails")
	assert.Equal(t, []string{"/box/out.txt", `/box/sub/a"b`, "/box/gone", "/box/a", "/box/b", "/box/proj/w/n", `/box/proj/w/y.tx\t`}, tr.Writes,
		"a descriptor's path is unescaped as strace escapes it (the fuzzer found y.tx\\t read as two backslashes)")
}

// TestRunEndsWithALineThatLeavesAProgramRunning: a line whose background
// program holds the output pipe ends Run with an error by its deadline
// (the fuzzer once hung ten minutes in Wait on such a line): the program
// is killed with the line's process group.
func TestRunEndsWithALineThatLeavesAProgramRunning(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("no strace (.ci/run installs it)")
	}
	b, err := NewBox(t.TempDir())
	require.NoError(t, err)
	type result struct {
		tr  Trace
		err error
	}
	done := make(chan result, 1)
	go func() {
		tr, err := Run(context.Background(), b, "sleep 300 & echo started")
		done <- result{tr, err}
	}()
	select {
	case r := <-done:
		// strace -f waits for the background program, so the line runs
		// to Run's deadline (20 s); the group is then killed and the pipe
		// closed. Before, only strace was killed and Wait hung on the
		// pipe the program held (300 s here, past the bound below). What
		// the line did until then is the trace the oracle judges.
		require.NoError(t, r.err)
		assert.Regexp(t, "did not finish in time|left a program running", r.tr.Unfinished)
		assert.True(t, slices.ContainsFunc(r.tr.Execs, func(e string) bool { return filepath.Base(e) == "sleep" }),
			"what the line ran before it was killed: %q", r.tr.Execs)
	case <-time.After(2 * time.Minute): // the deadline is 20 s; generous for a loaded machine
		t.Fatal("Run did not return")
	}
}
