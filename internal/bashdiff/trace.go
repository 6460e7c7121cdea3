// Package bashdiff runs a shell line with bash under strace, in a
// throwaway directory with a fake HOME, and reports the programs bash
// executed and the files it opened for writing: what the policy's
// differential test compares with the parts hitl showed and allowed.
package bashdiff

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Available reports why the differential test cannot run here (bash or
// strace missing, or ptrace not permitted), or nil.
func Available() error {
	for _, p := range []string{"bash", "strace"} {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("%s is not installed (Debian: apt-get install %s): %w", p, p, err)
		}
	}
	out, err := exec.Command("strace", "-f", "-qq", "-e", "trace=execve", "-o", "/dev/null", "true").CombinedOutput()
	if err != nil {
		return fmt.Errorf("strace cannot trace here (ptrace not permitted?): %v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// Box is a throwaway directory to run lines in, laid out as an agent's
// machine is: Home is the fake HOME (its .ssh/id_rsa is what the test's
// deny rules cover), Dir the working directory, a project inside it
// (~/proj, a git repository), Tmp bash's TMPDIR, Bin the stub programs.
type Box struct {
	Root, Dir, Home, Tmp, Bin string
}

// StubPrograms are the programs that are on PATH in a box as stubs: each
// logs its name and arguments (StubLog) and touches nothing. They are the
// programs a payload runs and no test rule allows (touch, rm, an
// interpreter, a remote shell …): strace still sees each one executed,
// with its arguments, yet a mismatch changes nothing outside the box. The
// programs the rules allow (cat, grep, git, tar, find, sed …) are the
// real ones, because what the oracle judges is what they really do with
// their options and files.
var StubPrograms = []string{
	"touch", "rm", "mv", "cp", "ln", "mkdir", "chmod", "dd", "truncate", "shred", "python", "python3", "perl", "ruby", "node",
	"nc", "ssh", "scp", "rsh", "gpg", "gpg2", "npm", "npx", "pytest", "docker", "kubectl", "terraform", "sudo", "rsync",
}

// StubLog is the file (in Tmp) the stub programs append their argv to.
const StubLog = "stubs.log"

// NewBox makes a box under parent: HOME with a key deny rules cover
// (~/.ssh/id_rsa); the project ~/proj (the working directory) with f, src/a.go,
// a.tar (an archive of f), w/ (where the rules let lines write), a git
// repository with one commit, link-to-key (a symlink to ~/.ssh/id_rsa)
// and keys (a symlink to ~/.ssh); the stub programs.
func NewBox(parent string) (Box, error) {
	root, err := os.MkdirTemp(parent, "box")
	if err != nil {
		return Box{}, err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return Box{}, err
	}
	b := Box{Root: root, Home: filepath.Join(root, "home"), Tmp: filepath.Join(root, "tmp"), Bin: filepath.Join(root, "bin")}
	b.Dir = filepath.Join(b.Home, "proj")
	dir := b.Dir
	for _, d := range []string{b.Home + "/.ssh", b.Tmp, b.Bin, dir + "/src", dir + "/w"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return Box{}, err
		}
	}
	for name, body := range map[string]string{"f": "one\ntwo\nTODO three\n", "src/a.go": "package a // TODO\n", b.Home + "/.ssh/id_rsa": "secret\n"} {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, name)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return Box{}, err
		}
	}
	for link, to := range map[string]string{dir + "/link-to-key": b.Home + "/.ssh/id_rsa", dir + "/keys": b.Home + "/.ssh"} {
		if err := os.Symlink(to, link); err != nil {
			return Box{}, err
		}
	}
	stub := "#!/bin/sh\nprintf '%s\\n' \"${0##*/} $*\" >> \"$TMPDIR/" + StubLog + "\"\n"
	for _, p := range StubPrograms {
		if err := os.WriteFile(filepath.Join(b.Bin, p), []byte(stub), 0o755); err != nil {
			return Box{}, err
		}
	}
	if out, err := exec.Command("tar", "-cf", filepath.Join(dir, "a.tar"), "-C", dir, "f").CombinedOutput(); err != nil {
		return Box{}, fmt.Errorf("tar: %v: %s", err, out)
	}
	// a git repository with one commit, so git's options really run
	git := func(args ...string) error {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "HOME="+b.Home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
		return nil
	}
	if _, err := exec.LookPath("git"); err == nil {
		for _, args := range [][]string{{"init", "-q"}, {"add", "f", "src"}, {"commit", "-q", "-m", "one"}} {
			if err := git(args...); err != nil {
				return Box{}, err
			}
		}
	}
	return b, nil
}

// Reset empties what a line may have left: w/ and the payload's mark.
func (b Box) Reset() {
	os.RemoveAll(b.Dir + "/w")
	os.Mkdir(b.Dir+"/w", 0o755)
	os.Remove(b.Dir + "/PWNED")
	os.Remove(filepath.Join(b.Tmp, StubLog))
}

// Trace is what bash did running a line.
type Trace struct {
	// Execs are the programs executed (their paths), bash itself left
	// out, one entry per execve that succeeded.
	Execs []string
	// Args are the arguments of each of Execs (argv without argv[0]).
	Args [][]string
	// Writes are the files opened for writing (the file the kernel
	// opened, symlinks resolved), created, removed, renamed or linked:
	// absolute, cleaned paths.
	Writes []string
	// Reads are the files opened for reading only, as the kernel
	// resolved them (strace -y: through symlinks, /proc/self/… and ..).
	Reads []string
	// Connects are the connect calls that succeeded or were attempted on
	// an internet socket (the line runs in a network namespace of its
	// own where the kernel allows it, so none reaches anything).
	Connects []string
	// Stubbed are the stub programs' lines, "NAME ARGS…" (StubLog).
	Stubbed []string
	// Output is what the line printed (stdout and stderr), for messages.
	Output string
	// Unfinished says why the line was stopped before it ended (its
	// deadline, or a program it left running that held its output); the
	// trace is then what it did until it was killed, which the oracle
	// judges like any other (a call still unfinished when it was killed
	// did not return and is left out).
	Unfinished string
}

// Run runs line with bash -O extglob under strace -f in b, with HOME set
// to b.Home, stdin from /dev/null and a deadline.
func Run(ctx context.Context, b Box, line string) (Trace, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	log := filepath.Join(b.Tmp, "strace.log")
	args := []string{"strace", "-f", "-qq", "-y", "-s", "65536", "-e", "signal=none", "-e",
		"trace=execve,execveat,open,openat,openat2,creat,truncate,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,link,linkat,symlink,symlinkat,chdir,fchdir,clone,clone3,fork,vfork,connect",
		"-o", log, "bash", "-O", "extglob", "-c", line}
	if netns() {
		args = append([]string{"unshare", "-n"}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = b.Dir
	cmd.Env = []string{"HOME=" + b.Home, "TMPDIR=" + b.Tmp, "PATH=" + b.Bin + ":/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin", "LANG=C", "LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1", "GOTOOLCHAIN=local", "GOTELEMETRY=off", "GOCACHE=" + b.Tmp + "/gocache",
		"GOPATH=" + b.Tmp + "/gopath", "XDG_CONFIG_HOME=" + b.Tmp + "/config", "XDG_CACHE_HOME=" + b.Tmp + "/cache"}
	// The deadline kills the whole process group, not only strace: a
	// program the line left running (in the background, or past a killed
	// parent) would otherwise hold the output pipe open and Wait with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the line left running
	}
	var unfinished string
	var exit *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrWaitDelay):
		unfinished = "the line left a program running that held its output"
	case ctx.Err() != nil:
		unfinished = "the line did not finish in time (" + ctx.Err().Error() + ")"
	case err != nil && !errors.As(err, &exit):
		return Trace{}, err
	}
	data, rerr := os.ReadFile(log)
	if rerr != nil {
		return Trace{}, rerr
	}
	os.Remove(log)
	tr, perr := parse(data, b.Dir, log)
	tr.Output = out.String()
	tr.Unfinished = unfinished
	if stubs, err := os.ReadFile(filepath.Join(b.Tmp, StubLog)); err == nil {
		tr.Stubbed = strings.Split(strings.TrimSuffix(string(stubs), "\n"), "\n")
		os.Remove(filepath.Join(b.Tmp, StubLog))
	}
	return tr, perr
}

// netns reports whether lines can run in a network namespace of their
// own (unshare -n; root or user namespaces).
func netns() bool {
	netnsOnce.Do(func() { netnsOK = exec.Command("unshare", "-n", "true").Run() == nil })
	return netnsOK
}

var (
	netnsOnce sync.Once
	netnsOK   bool
)

var (
	callLine = regexp.MustCompile(`^(\d+)\s+(\w+)\((.*)$`)
	resumed  = regexp.MustCompile(`^(\d+)\s+<\.\.\. (\w+) resumed>(.*)$`)
	result   = regexp.MustCompile(`\)\s+=\s+(-?\d+|\?)`)
	quoted   = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	// with strace -y: the directory a relative path is opened in, and
	// the file a descriptor returned really is (as the kernel resolved it)
	atCwd  = regexp.MustCompile(`^AT_FDCWD<([^>]*)>`)
	fdPath = regexp.MustCompile(`\)\s+=\s+\d+<(.*)>\s*$`)
)

// parse reads strace's log: calls that succeeded, with the working
// directory of each process followed through chdir and clone.
func parse(data []byte, dir, log string) (Trace, error) {
	var tr Trace
	cwd := map[string]string{}
	pending := map[string]string{} // pid -> the call's text before <unfinished ...>
	first := true
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		l := sc.Text()
		var pid, name, rest string
		if m := resumed.FindStringSubmatch(l); m != nil {
			pid, name = m[1], m[2]
			rest = pending[pid] + m[3]
			delete(pending, pid)
		} else if m := callLine.FindStringSubmatch(l); m != nil {
			pid, name, rest = m[1], m[2], m[3]
			if strings.HasSuffix(rest, "<unfinished ...>") {
				pending[pid] = strings.TrimSuffix(rest, "<unfinished ...>")
				continue
			}
		} else {
			continue
		}
		if name == "connect" && (strings.Contains(rest, "AF_INET") || strings.Contains(rest, "AF_INET6")) {
			tr.Connects = append(tr.Connects, strings.TrimSpace(rest))
			continue
		}
		r := result.FindStringSubmatch(rest)
		if r == nil || r[1] == "?" || strings.HasPrefix(r[1], "-") {
			continue
		}
		here := cwd[pid]
		if here == "" {
			here = dir
		}
		if m := atCwd.FindStringSubmatch(strings.TrimSpace(rest)); m != nil {
			here = m[1]
			if u, err := strconv.Unquote(`"` + here + `"`); err == nil {
				here = u
			}
		}
		args := quoted.FindAllStringSubmatch(rest, -1)
		str := func(i int) string {
			if i >= len(args) {
				return ""
			}
			s, err := strconv.Unquote(`"` + args[i][1] + `"`)
			if err != nil {
				return args[i][1]
			}
			return s
		}
		abs := func(p string) string {
			if p == "" {
				return ""
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(here, p)
			}
			return filepath.Clean(p)
		}
		switch name {
		case "clone", "clone3", "fork", "vfork":
			cwd[r[1]] = here
		case "chdir":
			cwd[pid] = abs(str(0))
		case "fchdir":
			cwd[pid] = "?" // a descriptor: the test's lines do not use it
		case "execve", "execveat":
			if first {
				first = false // bash itself
				continue
			}
			tr.Execs = append(tr.Execs, abs(str(0)))
			var argv []string
			if open := strings.Index(rest, "["); open >= 0 {
				if end := strings.Index(rest[open:], "], "); end >= 0 {
					for _, a := range quoted.FindAllStringSubmatch(rest[open:open+end], -1) {
						v, err := strconv.Unquote(`"` + a[1] + `"`)
						if err != nil {
							v = a[1]
						}
						argv = append(argv, v)
					}
				}
			}
			if len(argv) > 0 {
				argv = argv[1:]
			}
			tr.Args = append(tr.Args, argv)
		case "open", "openat", "openat2":
			flags := rest
			opened := abs(str(0))
			if m := fdPath.FindStringSubmatch(rest); m != nil && filepath.IsAbs(m[1]) {
				p := m[1] // escaped as strace quotes strings (a backslash is \\)
				if u, err := strconv.Unquote(`"` + p + `"`); err == nil {
					p = u
				}
				opened = filepath.Clean(p) // the file the kernel opened, links resolved
			}
			if !strings.Contains(flags, "O_WRONLY") && !strings.Contains(flags, "O_RDWR") && !strings.Contains(flags, "O_CREAT") &&
				!strings.Contains(flags, "O_TRUNC") && !strings.Contains(flags, "O_APPEND") {
				tr.Reads = append(tr.Reads, opened)
				continue
			}
			tr.Writes = append(tr.Writes, opened)
		case "creat", "truncate", "unlink", "unlinkat", "mkdir", "mkdirat":
			tr.Writes = append(tr.Writes, abs(str(0)))
		case "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat":
			tr.Writes = append(tr.Writes, abs(str(0)), abs(str(1)))
		}
	}
	var kept []string
	for _, w := range tr.Writes {
		if w != log && w != "" {
			kept = append(kept, w)
		}
	}
	tr.Writes = kept
	return tr, sc.Err()
}
