package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// watchChildEnv holds the arguments (newline-separated) TestWatchChild
// runs hitl with, as a process; without it the child test skips.
const watchChildEnv = "HITL_WATCH_CHILD"

// TestWatchChild is hitl run as a process (process: its signal
// handling) by TestWatchStopsOnSIGTERM.
func TestWatchChild(t *testing.T) {
	args := os.Getenv(watchChildEnv)
	if args == "" {
		t.Skip("the child of TestWatchStopsOnSIGTERM")
	}
	os.Exit(process(strings.Split(args, "\n")))
}

// TestWatchStopsOnSIGTERM: `hitl watch` as a process, watching a
// directory whose request.json is a FIFO (refused, never waited on)
// and one whose question is pending, exits 0 at once on SIGTERM and
// leaves the question pending for the next watcher.
func TestWatchStopsOnSIGTERM(t *testing.T) {
	m := startMain(t)
	fifo, asked := &engine{dir: t.TempDir()}, &engine{dir: t.TempDir()}
	require.NoError(t, os.MkdirAll(fifo.interaction(), 0o755))
	require.NoError(t, syscall.Mkfifo(fifo.request(), 0o644))
	asked.pause(t, "Ship it?", "confirmation", false)

	stderr := newSignalBuffer()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchChild$")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "USER=tester", "HITL_URL=" + m.URL(),
		watchChildEnv + "=" + strings.Join([]string{"watch", fifo.dir, asked.dir}, "\n")}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})

	q := waitQuestion(t, m, "Ship it?", hitl.StatusPending)
	stderr.waitFor(t, "asked "+q.ID)
	stderr.waitFor(t, filepath.Join(fifo.interaction(), "request.json")+" is not a regular file")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("hitl watch exited %d on SIGTERM; it said:\n%s", exit.ExitCode(), stderr.String())
		}
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatalf("hitl watch did not stop on SIGTERM; it said:\n%s", stderr.String())
	}
	assert.NotNil(t, findQuestion(t, m, "Ship it?", hitl.StatusPending), "the question waits for the next watcher")
}
