package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/eventtest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// untilLogged waits until the event log holds an event matching ok.
func untilLogged(t *testing.T, m *Main, what string, ok func(*hitl.Event) bool) {
	t.Helper()
	eventtest.Until(t, m.Service, what, ok)
}

func reported(run string, iter int) func(*hitl.Event) bool {
	return func(ev *hitl.Event) bool {
		return ev.Type == hitl.EventRunState && ev.RunID == run && ev.State.Event == steer.StateRunning && len(ev.State.Stack) > 0 && ev.State.Stack[0].Iter == iter
	}
}

func checkpointOut(t *testing.T, r cliResult) checkpointLine {
	t.Helper()
	require.Equal(t, 0, r.code, r.stderr)
	var line checkpointLine
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &line), r.stdout)
	return line
}

func TestSteerAShellLoop(t *testing.T) {
	ctx := context.Background()
	m := startMain(t)
	line := checkpointOut(t, cli(ctx, m, "", "checkpoint", "--run", "sh-1", "--iter", "1", "--max", "3", "--model", "haiku", "--issue", "auth-123"))
	assert.Equal(t, steer.RunRunning, line.Status)
	assert.Equal(t, "haiku", line.Model)

	t.Run("pause makes the next checkpoint wait for resume", func(t *testing.T) {
		r := cli(ctx, m, "", "pause", "sh-1")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "pause sh-1: Loop paused at iteration 1 of 3\n", r.stdout)
		ch := startCLI(ctx, m, strings.NewReader(""), "checkpoint", "--run", "sh-1", "--iter", "2", "--max", "3", "--model", "haiku")
		untilLogged(t, m, "the paused loop's report of iteration 2", reported("sh-1", 2))
		select {
		case r := <-ch:
			t.Fatalf("checkpoint returned while paused: %+v", r)
		default:
		}
		r = cli(ctx, m, "", "resume", "sh")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "resume sh-1:", "a unique prefix names the run")
		assert.Equal(t, steer.RunRunning, checkpointOut(t, result(t, ch)).Status)
	})
	t.Run("escalate and redirect reach the loop once", func(t *testing.T) {
		r := cli(ctx, m, "", "escalate", "sh-1", "--model", "opus", "--reason", "stuck")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "escalate sh-1: haiku → opus\n", r.stdout)
		require.Equal(t, 0, cli(ctx, m, "", "redirect", "sh-1", "use", "the", "v2", "API").code)
		line := checkpointOut(t, cli(ctx, m, "", "checkpoint", "--run", "sh-1", "--iter", "3", "--model", "haiku"))
		assert.Equal(t, "opus", line.NewModel)
		assert.Equal(t, "use the v2 API", line.Instruction)
		line = checkpointOut(t, cli(ctx, m, "", "checkpoint", "--run", "sh-1", "--iter", "3", "--model", "opus"))
		assert.Empty(t, line.NewModel)
		assert.Empty(t, line.Instruction)
	})
	t.Run("runs and status show the loop", func(t *testing.T) {
		r := cli(ctx, m, "", "runs")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "sh-1")
		assert.Contains(t, r.stdout, "auth-123")
		assert.Contains(t, r.stdout, "3 of 3")
		assert.Contains(t, r.stdout, "opus")
		r = cli(ctx, m, "", "status", "sh-1")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "Run sh-1: running, iteration 3 of 3, model opus")
		assert.Contains(t, r.stdout, "Escalated: stuck")
	})
	t.Run("a failure prints the seed's code and exits with the table's", func(t *testing.T) {
		r := cli(ctx, m, "", "resume", "sh-1")
		assert.Equal(t, exitBadState, r.code)
		assert.Contains(t, r.stderr, "invalid_state: Run sh-1 is not paused")
		r = cli(ctx, m, "", "pause", "nobody-runs-this")
		assert.Equal(t, exitNotFound, r.code)
		assert.Contains(t, r.stderr, "no run is named nobody-runs-this or starts with it")
	})
	t.Run("cancel makes the next checkpoint exit 5", func(t *testing.T) {
		require.Equal(t, 0, cli(ctx, m, "", "cancel", "sh-1").code)
		r := cli(ctx, m, "", "checkpoint", "--run", "sh-1", "--iter", "4")
		assert.Equal(t, exitCancelled, r.code)
		assert.Contains(t, r.stderr, "run sh-1 is cancelled: USER_CANCELLED")
		r = cli(ctx, m, "", "runs")
		assert.Contains(t, r.stdout, "No run is going on or waiting for a person")
		r = cli(ctx, m, "", "runs", "--all")
		assert.Contains(t, r.stdout, "cancelled")
	})
	t.Run("done ends a loop", func(t *testing.T) {
		checkpointOut(t, cli(ctx, m, "", "checkpoint", "--run", "sh-2", "--iter", "1"))
		r := cli(ctx, m, "", "done", "--run", "sh-2")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "Run sh-2: done\n", r.stdout)
	})
}

func TestPrompt(t *testing.T) {
	ctx := context.Background()
	two := 2
	m := startMain(t, func(c *config.Config, _ *Main) { c.InteractionThreshold = &two })
	r := cli(ctx, m, "", "prompt")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Interaction threshold: 2 of 5", "the service's default")
	r = cli(ctx, m, "", "prompt", "--threshold", "0")
	assert.Contains(t, r.stdout, "Do not ask a person anything")
	checkpointOut(t, cli(ctx, m, "", "checkpoint", "--run", "t-1", "--iter", "1", "--threshold", "5"))
	r = cli(ctx, m, "", "prompt", "--run", "t-1")
	assert.Contains(t, r.stdout, "Interaction threshold: 5 of 5", "the run's own")
	r = cli(ctx, m, "", "prompt", "--threshold", "7")
	assert.Equal(t, exitUsage, r.code)
	checkpointOut(t, cli(ctx, m, "", "checkpoint", "--run", "t-0", "--iter", "1", "--threshold", "0"))
	r = cli(ctx, m, "", "ask", "Which DB?", "--run", "t-0")
	assert.Equal(t, exitRefused, r.code)
	assert.Contains(t, r.stderr, "proceed on your own judgement")
}

// lines is a writer that hands each complete line to a channel.
type lines struct {
	w  *io.PipeWriter
	ch chan string
}

func newLines() *lines {
	r, w := io.Pipe()
	l := &lines{w: w, ch: make(chan string, 1000)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.ch <- sc.Text()
		}
		close(l.ch)
	}()
	return l
}

func (l *lines) Write(p []byte) (int, error) { return l.w.Write(p) }

// next returns the next line that contains want.
func (l *lines) next(t *testing.T, want string) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case s, ok := <-l.ch:
			if !ok {
				t.Fatalf("output ended before a line with %q", want)
			}
			if strings.Contains(s, want) {
				return s
			}
		case <-deadline:
			t.Fatalf("no line with %q", want)
		}
	}
}

// processState reads a process's state letter from /proc (T: stopped).
func processState(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return fields[0]
}

// untilState waits until the process is (want) or is not (!want) in
// state: a signal is delivered a moment after kill returns.
func untilState(t *testing.T, pid int, state string, want bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for (processState(t, pid) == state) != want {
		if time.Now().After(deadline) {
			t.Fatalf("process %d: state %s, want %s=%v", pid, processState(t, pid), state, want)
		}
		runtime.Gosched()
	}
}

func TestRunSupervisesAProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see that the process is stopped")
	}
	ctx := context.Background()
	m := startMain(t)
	stdout, stderr := newLines(), newLines()
	done := make(chan int, 1)
	go func() {
		e := &env{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr, getenv: func(k string) string {
			if k == "HITL_URL" {
				return m.URL()
			}
			return ""
		}}
		// A shell loop that counts: it never heard of hitl.
		done <- run(ctx, []string{"run", "--run", "proc-1", "--grace", "5s", "--", "sh", "-c",
			`i=0; while :; do i=$((i+1)); echo "count $i"; sleep 0.02; done`}, e)
	}()
	started := stderr.next(t, "hitl: started sh (pid ")
	pidText, _, _ := strings.Cut(started[strings.Index(started, "(pid ")+5:], ")")
	pid, err := strconv.Atoi(pidText)
	require.NoError(t, err, started)
	stdout.next(t, "count 2")

	require.Equal(t, 0, cli(ctx, m, "", "pause", "proc-1").code)
	stderr.next(t, "paused: process group")
	untilState(t, pid, "T", true) // the counter is stopped while paused

	require.Equal(t, 0, cli(ctx, m, "", "resume", "proc-1").code)
	stderr.next(t, "resumed: process group")
	untilState(t, pid, "T", false)
	stdout.next(t, "count") // it counts again

	require.Equal(t, 0, cli(ctx, m, "", "cancel", "proc-1").code)
	select {
	case code := <-done:
		assert.Equal(t, exitCancelled, code, "a cancelled run exits 5")
	case <-time.After(10 * time.Second):
		t.Fatal("hitl run did not end after cancel")
	}
	run, err := m.Service.Runs.RunRecord(principaltest.As(ctx, "admin:t"), "proc-1")
	require.NoError(t, err)
	assert.Equal(t, steer.RunCancelled, run.Control.Status)
}

func TestRunReportsTheExit(t *testing.T) {
	ctx := context.Background()
	m := startMain(t)
	r := cli(ctx, m, "", "run", "--run", "ok-1", "--", "sh", "-c", "exit 0")
	require.Equal(t, 0, r.code, r.stderr)
	r = cli(ctx, m, "", "run", "--run", "bad-1", "--", "sh", "-c", "exit 3")
	assert.Equal(t, 3, r.code, "the command's exit code")
	for id, want := range map[string]steer.RunStatus{"ok-1": steer.RunDone, "bad-1": steer.RunAborted} {
		run, err := m.Service.Runs.RunRecord(principaltest.As(ctx, "admin:t"), id)
		require.NoError(t, err)
		assert.Equal(t, want, run.Control.Status, id)
	}
	run, _ := m.Service.Runs.RunRecord(principaltest.As(ctx, "admin:t"), "bad-1")
	assert.Equal(t, "exit code 3", run.Control.Reason)
}

func TestPausedRunSurvivesARestart(t *testing.T) {
	ctx := context.Background()
	first := startMainNoCleanup(t)
	checkpointOut(t, cli(ctx, first, "", "checkpoint", "--run", "keep-1", "--iter", "2", "--max", "5"))
	require.Equal(t, 0, cli(ctx, first, "", "pause", "keep-1").code)
	db := first.Config.DB
	require.NoError(t, first.Close())

	second := startMain(t, func(c *config.Config, _ *Main) { c.DB = db })
	run, err := second.Service.Runs.RunRecord(principaltest.As(ctx, "admin:t"), "keep-1")
	require.NoError(t, err)
	assert.Equal(t, steer.RunPaused, run.Control.Status, "paused across the service's restart")
	ch := startCLI(ctx, second, strings.NewReader(""), "checkpoint", "--run", "keep-1", "--iter", "3")
	untilLogged(t, second, "the restarted agent's report", reported("keep-1", 3))
	select {
	case r := <-ch:
		t.Fatalf("a restarted agent went on while paused: %+v", r)
	default:
	}
	r := cli(ctx, second, "", "pause", "keep-1")
	assert.Equal(t, exitBadState, r.code, "still paused: %s", r.stderr)
	require.Equal(t, 0, cli(ctx, second, "", "resume", "keep-1").code)
	assert.Equal(t, steer.RunRunning, checkpointOut(t, result(t, ch)).Status)
}
