package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// configs are go-landlock's full configuration at each ABI (index: ABI).
var configs = []landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7}

// Exec replaces the process with argv run under p (env: its
// environment). It returns only on failure. At ABI 0 it runs argv
// unrestricted: the caller decides whether that is allowed (BestEffort).
func Exec(p *Plan, argv, env []string) error {
	for _, f := range p.Create {
		fd, err := os.OpenFile(f, os.O_CREATE|os.O_WRONLY, 0o666)
		if err != nil {
			return fmt.Errorf("cannot create %s for the command to write: %w", f, err)
		}
		fd.Close()
	}
	// Restrict the one OS thread that then executes the command: it is
	// never unlocked, so no other goroutine runs on it restricted.
	runtime.LockOSThread()
	if p.ABI > 0 {
		fd, flags, err := configs[p.ABI].NewRulesetFD(p.rules()...)
		if err != nil {
			return fmt.Errorf("cannot build the Landlock ruleset: %w", err)
		}
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("cannot set no_new_privs: %w", err)
		}
		if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
			return fmt.Errorf("cannot enter the Landlock domain: %w", err)
		}
		unix.Close(fd)
	}
	err := syscall.Exec(p.Program, argv, env)
	return fmt.Errorf("cannot run %s: %w", argv[0], err)
}

// rules are p's rules as go-landlock takes them.
func (p *Plan) rules() []landlock.Rule {
	var out []landlock.Rule
	for _, r := range p.Rules {
		// a path gone since it was listed (a sibling of a denied path)
		// grants nothing: what is not there stays denied
		out = append(out, landlock.PathAccess(landlock.AccessFSSet(r.Access), r.Path).IgnoreIfMissing())
	}
	if p.ABI >= 4 {
		for _, port := range p.Ports {
			out = append(out, landlock.ConnectTCP(port))
		}
	}
	return out
}

// Summary is what `hitl sandbox` says before it runs the command: the
// ABI it got, what the command may do, and what stays unenforced.
func (p *Plan) Summary() string {
	var b strings.Builder
	if p.ABI == 0 {
		b.WriteString("no Landlock on this kernel: nothing is enforced")
	} else {
		fmt.Fprintf(&b, "Landlock ABI %d", p.ABI)
	}
	b.WriteString("; not enforced: ")
	b.WriteString(strings.Join(p.Unenforced, "; "))
	return b.String()
}
