package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// README's tour, walked as written: the commands its console blocks show,
// in order, on a fresh home directory, each output and exit code held
// against what README shows.
//
// What stands in for what: `hitl` is this test binary (TestTourChild runs
// main with the arguments, as argv[0] "hitl"), which `go install
// ./cmd/hitl` is replaced by putting at $(go env GOPATH)/bin/hitl (where go
// install puts it); `go run ./cmd/hitl` runs the same. The service listens
// on a free port instead of 7070 (HITL_LISTEN, HITL_URL), and that address
// reads as 127.0.0.1:7070 in what it prints. USER is "you".

const tourChildEnv = "HITL_TOUR_CHILD"

// TestTourChild is not a test: it is hitl, for TestREADMETour's commands.
func TestTourChild(t *testing.T) {
	if os.Getenv(tourChildEnv) == "" {
		t.Skip("runs only as hitl in TestREADMETour")
	}
	os.Args = append([]string{os.Args[0]}, flag.Args()...)
	main()
}

// tourItem is one thing README's tour shows in a console block: a command
// ("$ cmd") and the lines it prints, or (cmd == "") the lines a command
// still running in another terminal prints next.
type tourItem struct {
	cmd  string
	want []string
}

// readmeTour returns the items of README's "A 60-second tour" console
// blocks, in order.
func readmeTour(t *testing.T) []tourItem {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n## A 60-second tour\n")
	require.True(t, ok, "README.md has its tour")
	section, _, _ = strings.Cut(section, "\n## ")
	var items []tourItem
	for _, m := range regexp.MustCompile("(?ms)^```console\n(.*?)^```").FindAllStringSubmatch(section, -1) {
		first := true
		for _, line := range strings.Split(strings.TrimSuffix(m[1], "\n"), "\n") {
			if cmd, ok := strings.CutPrefix(line, "$ "); ok {
				items = append(items, tourItem{cmd: cmd})
			} else if first {
				items = append(items, tourItem{want: []string{line}})
			} else {
				items[len(items)-1].want = append(items[len(items)-1].want, line)
			}
			first = false
		}
	}
	require.NotEmpty(t, items, "README's tour shows its commands in console blocks")
	return items
}

// tourOutput is what a terminal shows: stdout and stderr in the order
// they were written; Changed is closed at the next write.
type tourOutput struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newTourOutput() *tourOutput { return &tourOutput{changed: make(chan struct{})} }

func (o *tourOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	close(o.changed)
	o.changed = make(chan struct{})
	return o.buf.Write(p)
}

func (o *tourOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// Changed returns a channel closed at the next write.
func (o *tourOutput) Changed() <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.changed
}

// tourProc is a command the tour leaves running: the service, a waiting
// hitl ask, a supervised command.
type tourProc struct {
	cmd  *exec.Cmd
	out  *tourOutput
	seen int // lines of out already held against README
	done chan struct{}
	code int
}

func (p *tourProc) lines() []string {
	s := strings.TrimSuffix(p.out.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// tour is the state of a walk: the environment every terminal shares, and
// what README's ids stand for.
type tour struct {
	t     *testing.T
	dir   string // the directory the tour runs in (./hitl.db)
	env   map[string]string
	self  string
	ids   map[string]string // README's q_… → this walk's
	addr  string            // the service's real address
	procs []*tourProc
}

func (w *tour) environ() []string {
	var out []string
	for k, v := range w.env {
		out = append(out, k+"="+v)
	}
	return out
}

// shell runs line with bash in the tour's directory and environment,
// writing its stdout and stderr to one buffer as a terminal shows them.
func (w *tour) shell(ctx context.Context, line string) (*exec.Cmd, *tourOutput) {
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir, cmd.Env = w.dir, w.environ()
	out := newTourOutput()
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second // a child that keeps the output open does not hold the walk
	return cmd, out
}

var (
	tourID       = regexp.MustCompile(`\bq_[0-9a-z]{16}\b`)
	tourTime     = regexp.MustCompile(`\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\b`)
	tourDuration = regexp.MustCompile(`\bin \d+m\d+s\b`)
	tourPID      = regexp.MustCompile(`\b(pid|process group) \d+\b`)
	tourSpaces   = regexp.MustCompile(` +`)
)

// normal is a line with what differs from walk to walk (ids, times,
// durations, pids, column widths) made the same.
func normal(line string) string {
	line = tourID.ReplaceAllString(line, "q_ID")
	line = tourTime.ReplaceAllString(line, "TIME")
	line = tourDuration.ReplaceAllString(line, "in DURATION")
	line = tourPID.ReplaceAllString(line, "$1 PID")
	return strings.TrimRight(tourSpaces.ReplaceAllString(line, " "), " ")
}

// match holds what a command printed against what README shows, learning
// which real id each of README's ids stands for.
func (w *tour) match(what string, want, got []string) {
	w.t.Helper()
	for i := range got {
		got[i] = strings.ReplaceAll(got[i], w.addr, "127.0.0.1:7070")
	}
	if !assert.Equal(w.t, len(want), len(got), "%s: README shows %d lines, it printed:\n%s", what, len(want), strings.Join(got, "\n")) {
		return
	}
	for i := range want {
		wi, gi := tourID.FindAllString(want[i], -1), tourID.FindAllString(got[i], -1)
		if len(wi) == len(gi) {
			for j, id := range wi {
				if prev, ok := w.ids[id]; ok {
					assert.Equal(w.t, prev, gi[j], "%s: README's %s stands for one question", what, id)
				}
				w.ids[id] = gi[j]
			}
		}
		assert.Equal(w.t, normal(want[i]), normal(got[i]), "%s: line %d\nREADME: %s\nprints: %s", what, i+1, want[i], got[i])
	}
}

// waitFor waits until p printed n lines, or ended.
func (w *tour) waitFor(ctx context.Context, what string, p *tourProc, n int) {
	w.t.Helper()
	for {
		changed := p.out.Changed() // before the look: a write after it wakes us
		if len(p.lines()) >= n {
			return
		}
		select {
		case <-p.done:
			if len(p.lines()) < n {
				w.t.Fatalf("%s ended (exit %d) having printed:\n%s", what, p.code, p.out.String())
			}
			return
		case <-changed:
		case <-ctx.Done():
			w.t.Fatalf("%s: README shows %d lines; in time it printed:\n%s", what, n, p.out.String())
		}
	}
}

func TestREADMETour(t *testing.T) {
	if testing.Short() {
		t.Skip("walks README's tour with the real service")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("README's tour needs go on PATH")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	home, dir := t.TempDir(), t.TempDir()
	w := &tour{t: t, dir: dir, self: self, ids: map[string]string{}, env: map[string]string{
		"HOME": home, "USER": "you", "PATH": filepath.Dir(goBin) + ":/usr/bin:/bin",
		"HITL_LISTEN": "127.0.0.1:0", tourChildEnv: "1",
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		for _, p := range w.procs {
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			// hitl run's command has a process group of its own.
			for _, m := range regexp.MustCompile(`\(pid (\d+)\)`).FindAllStringSubmatch(p.out.String(), -1) {
				var pid int
				if _, err := fmt.Sscan(m[1], &pid); err == nil && pid > 1 {
					_ = syscall.Kill(-pid, syscall.SIGKILL)
				}
			}
			<-p.done
			if t.Failed() {
				t.Logf("%s printed:\n%s", strings.Join(p.cmd.Args, " "), p.out.String())
			}
		}
	})
	var (
		running  *tourProc // the command in the agent's terminal that is still running
		lastCode int       // the exit code the last command (or the one that ended) left
	)
	items := readmeTour(t)
	for i, it := range items {
		switch {
		case it.cmd == "":
			// The agent's terminal, after the person acted: the rest of
			// what its command prints, once it ended.
			require.NotNil(t, running, "README shows output with no command running")
			select {
			case <-running.done:
			case <-ctx.Done():
				t.Fatalf("%s is still running; README shows it ended", strings.Join(running.cmd.Args, " "))
			}
			w.match(running.cmd.Args[2], it.want, running.lines()[running.seen:])
			lastCode, running = running.code, nil
		case it.cmd == "echo $?":
			require.Len(t, it.want, 1)
			assert.Equal(t, it.want[0], fmt.Sprint(lastCode), "README's exit code after item %d (%q)", i, items[i-1].cmd)
		case it.cmd == "go install ./cmd/hitl":
			// A fresh machine: no hitl on PATH yet. go install puts it in
			// $(go env GOPATH)/bin.
			cmd, out := w.shell(ctx, "command -v hitl")
			assert.Error(t, cmd.Run(), "hitl is on the fresh PATH already: %s", out)
			cmd, out = w.shell(ctx, "go env GOPATH")
			require.NoError(t, cmd.Run(), out.String())
			bin := filepath.Join(strings.TrimSpace(out.String()), "bin")
			assert.Equal(t, filepath.Join(home, "go", "bin"), bin, "README: ~/go/bin unless you set GOPATH")
			require.NoError(t, os.MkdirAll(bin, 0o755))
			shim := fmt.Sprintf("#!/bin/bash\nexec -a hitl %q -test.run='^TestTourChild$' -- \"$@\"\n", self)
			require.NoError(t, os.WriteFile(filepath.Join(bin, "hitl"), []byte(shim), 0o755))
			lastCode = 0
		case strings.HasPrefix(it.cmd, "export PATH="):
			// Every terminal of the tour runs it (or has it in its
			// profile): after it, hitl is the one go install wrote.
			cmd, out := w.shell(ctx, it.cmd+` && printf '%s\n%s\n' "$PATH" "$(command -v hitl)"`)
			require.NoError(t, cmd.Run(), out.String())
			path, found, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
			w.env["PATH"] = path
			assert.Equal(t, filepath.Join(home, "go", "bin", "hitl"), found, "README's PATH line finds the installed hitl")
			lastCode = 0
		case strings.HasPrefix(it.cmd, "go run ./cmd/hitl serve"):
			p := w.start(ctx, strings.Replace(it.cmd, "go run ./cmd/hitl", `exec -a hitl "$0" -test.run='^TestTourChild$' --`, 1))
			w.waitFor(ctx, "serve", p, 1)
			first := p.lines()[0]
			addr := regexp.MustCompile(`^hitl listening on http://(127\.0\.0\.1:\d+),`).FindStringSubmatch(first)
			require.NotNil(t, addr, first)
			w.addr = addr[1]
			w.env["HITL_URL"] = "http://" + w.addr
			delete(w.env, "HITL_LISTEN")
			w.match(it.cmd, it.want, p.lines()[:len(it.want)])
			p.seen = len(it.want)
		case strings.HasPrefix(it.cmd, "hitl ask ") && !strings.Contains(it.cmd, "--no-wait"),
			strings.HasPrefix(it.cmd, "hitl run "):
			// The agent's terminal: it waits for a person, or runs until
			// steered.
			require.Nil(t, running, "README runs %q while the agent's terminal is busy", it.cmd)
			running = w.start(ctx, w.real(it.cmd))
			w.waitFor(ctx, it.cmd, running, len(it.want))
			w.match(it.cmd, it.want, running.lines()[:len(it.want)])
			running.seen = len(it.want)
		default:
			// The person's terminal: a command that ends.
			cmd, out := w.shell(ctx, w.real(it.cmd))
			err := cmd.Run()
			lastCode = cmd.ProcessState.ExitCode()
			if i+1 >= len(items) || items[i+1].cmd != "echo $?" {
				assert.NoError(t, err, "%s (README shows no exit code: 0)\n%s", it.cmd, out)
			}
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if out.String() == "" {
				got = nil
			}
			w.match(it.cmd, it.want, got)
		}
		if t.Failed() {
			t.FailNow() // the rest of the tour builds on this step
		}
	}
	require.Nil(t, running, "the tour leaves nothing waiting")
}

// real is README's command with README's ids replaced by this walk's.
func (w *tour) real(cmd string) string {
	return tourID.ReplaceAllStringFunc(cmd, func(id string) string {
		real, ok := w.ids[id]
		if !ok {
			w.t.Fatalf("%q: README's %s was never printed before", cmd, id)
		}
		return real
	})
}

// start starts a command the tour leaves running. "$0" in line is this
// test binary.
func (w *tour) start(ctx context.Context, line string) *tourProc {
	w.t.Helper()
	cmd, out := w.shell(ctx, line)
	cmd.Args = append(cmd.Args, w.self)
	p := &tourProc{cmd: cmd, out: out, done: make(chan struct{})}
	require.NoError(w.t, cmd.Start())
	w.procs = append(w.procs, p)
	go func() {
		_ = cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	return p
}
