package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Spec is what a sandboxed command may do: `hitl sandbox`'s flags.
type Spec struct {
	// Exec are the programs it may execute (names on PATH or paths; a
	// directory: every program beneath it). The command itself is
	// always one.
	Exec []string
	// Read limits reading to these paths (and what running the programs
	// needs: their files, the shared library directories, /dev/null);
	// empty: everything may be read but DenyRead.
	Read []string
	// Write are the paths it may write: a directory, everything beneath
	// it; a file, that file (created empty first when it does not exist,
	// as the shell's redirection would).
	Write []string
	// DenyRead are paths it may not read, whatever Read says.
	DenyRead []string
	// Net are the TCP endpoints it may connect to, HOST:PORT; Landlock
	// enforces the port only.
	Net []string
	// BestEffort runs the command on a kernel without Landlock, saying
	// what is not enforced, instead of refusing.
	BestEffort bool
}

// Access rights, as Landlock names them.
const (
	rightsExec      = ll.AccessFSExecute | ll.AccessFSReadFile
	rightsReadFile  = ll.AccessFSReadFile
	rightsReadDir   = ll.AccessFSReadFile | ll.AccessFSReadDir
	rightsWriteFile = ll.AccessFSWriteFile | ll.AccessFSTruncate
	rightsWriteDir  = ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSym | ll.AccessFSMakeFifo | ll.AccessFSMakeSock | ll.AccessFSRefer
	rightsDevice = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	// rightsOnFiles are the rights Landlock accepts on a path that is not
	// a directory.
	rightsOnFiles = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
)

// handledFS are the filesystem rights each ABI restricts (index: ABI).
var handledFS = []uint64{0, 1<<13 - 1, 1<<14 - 1, 1<<15 - 1, 1<<15 - 1, 1<<16 - 1, 1<<16 - 1, 1<<16 - 1}

// libraryDirs are read with --read too: the shared libraries programs map.
var libraryDirs = []string{"/lib", "/lib32", "/lib64", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libexec", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d"}

// PathRule grants Access (Landlock filesystem rights) beneath Path.
type PathRule struct {
	Path   string
	Access uint64
}

// Plan is a Spec made concrete on this machine, for a kernel at ABI: the
// rules to add, the ports to allow, the files to create first.
type Plan struct {
	ABI     int
	Program string // the command's file
	Rules   []PathRule
	Ports   []uint16
	// Create are --write files that did not exist: created empty before
	// the domain is entered, so that the rule names that file only.
	Create []string
	// Programs are the files it may execute, for the person to read.
	Programs []string
	// Unenforced says what the kernel leaves open (Unenforced), plus
	// what this spec asked that it cannot say to Landlock.
	Unenforced []string
}

// Build makes spec concrete for argv at ABI abi, looking programs up on
// path and placing relative paths in dir.
func Build(spec Spec, argv []string, abi int, path, dir string) (*Plan, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command to run")
	}
	p := &Plan{ABI: abi, Unenforced: Unenforced(abi)}
	abs := func(s string) string {
		if !filepath.IsAbs(s) {
			s = filepath.Join(dir, s)
		}
		return filepath.Clean(s)
	}
	// programs
	progs := append([]string{argv[0]}, spec.Exec...)
	for i, prog := range progs {
		if strings.Contains(prog, "/") {
			prog = abs(prog)
		}
		files, err := Resolve(prog, path)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			p.Program = files[0]
		}
		for _, f := range files {
			if !slices.Contains(p.Programs, f) {
				p.Programs = append(p.Programs, f)
				p.add(f, rightsExec|rightsReadDir)
			}
		}
	}
	// what is denied, as the kernel resolves it
	var denied []string
	for _, d := range spec.DenyRead {
		denied = append(denied, realPath(abs(d)))
	}
	// reads: everything, or what Read names, less what is denied
	roots := []string{"/"}
	if len(spec.Read) > 0 {
		roots = append(append([]string{}, libraryDirs...), p.Programs...)
		for _, r := range spec.Read {
			roots = append(roots, realPath(abs(r)))
		}
	}
	for _, d := range denied {
		var err error
		if roots, err = carve(roots, d); err != nil {
			return nil, err
		}
	}
	for _, r := range roots {
		p.add(r, rightsReadDir)
	}
	for _, f := range p.Programs {
		if deniedPath(f, denied) {
			return nil, fmt.Errorf("program %s is under a path it may not read", f)
		}
	}
	// writes
	for _, w := range spec.Write {
		w = abs(w)
		fi, err := os.Stat(w)
		switch {
		case errors.Is(err, os.ErrNotExist):
			parent := realPath(filepath.Dir(w))
			if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
				return nil, fmt.Errorf("--write %s: its directory %s does not exist", w, filepath.Dir(w))
			}
			w = filepath.Join(parent, filepath.Base(w))
			p.Create = append(p.Create, w)
			p.Rules = append(p.Rules, PathRule{Path: w, Access: rightsWriteFile & handledFS[abi]})
			continue
		case err != nil:
			return nil, fmt.Errorf("--write %s: %w", w, err)
		}
		w = realPath(w)
		access := uint64(rightsWriteFile)
		if fi.IsDir() {
			access = rightsWriteDir
			if !deniedPath(w, denied) {
				access |= rightsReadDir
			}
		}
		p.add(w, access)
	}
	// the terminal and /dev/null
	for _, dev := range terminal() {
		p.add(dev, rightsDevice)
	}
	// network
	for _, n := range spec.Net {
		host, port, err := net.SplitHostPort(n)
		if err != nil {
			return nil, fmt.Errorf("--net %s: want HOST:PORT (a TCP port)", n)
		}
		v, err := strconv.ParseUint(port, 10, 16)
		if err != nil || v == 0 {
			return nil, fmt.Errorf("--net %s: %q is not a TCP port", n, port)
		}
		p.Ports = append(p.Ports, uint16(v))
		if host != "" && host != "*" {
			p.Unenforced = append(p.Unenforced, "--net "+n+": any host on port "+port+", not only "+host)
		}
	}
	return p, nil
}

// add grants access beneath path, as much of it as the ABI restricts and
// a path of its kind takes.
func (p *Plan) add(path string, access uint64) {
	fi, err := os.Stat(path)
	if err != nil {
		return // nothing there to grant: it stays denied
	}
	if !fi.IsDir() {
		access &= rightsOnFiles
	}
	if access &= handledFS[p.ABI]; access != 0 {
		p.Rules = append(p.Rules, PathRule{Path: path, Access: access})
	}
}

// carve takes denied out of the read roots: a root at or beneath it is
// dropped; a root above it is replaced by every sibling hierarchy on the
// way down to it (Landlock grants, it never subtracts). A symlink is no
// hierarchy of its own (reading through it needs its target's), so it is
// skipped: it could lead into denied.
func carve(roots []string, denied string) ([]string, error) {
	var out []string
	for _, r := range roots {
		switch {
		case within(r, denied):
			continue
		case !within(denied, r):
			out = append(out, r)
			continue
		}
		for at := r; at != denied; {
			rest := strings.TrimPrefix(strings.TrimPrefix(denied, at), "/")
			next := filepath.Join(at, strings.SplitN(rest, "/", 2)[0])
			entries, err := os.ReadDir(at)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					break
				}
				return nil, fmt.Errorf("--deny-read %s: cannot list %s to grant what is beside it: %w", denied, at, err)
			}
			for _, e := range entries {
				if c := filepath.Join(at, e.Name()); c != next && e.Type()&os.ModeSymlink == 0 {
					out = append(out, c)
				}
			}
			at = next
		}
	}
	return out, nil
}

// within reports whether p is base or beneath it.
func within(p, base string) bool {
	return p == base || base == "/" || strings.HasPrefix(p, base+"/")
}

func deniedPath(p string, denied []string) bool {
	for _, d := range denied {
		if within(p, d) {
			return true
		}
	}
	return false
}

// realPath resolves the symlinks of p's longest existing prefix: the path
// the kernel checks.
func realPath(p string) string {
	rest := ""
	for at := p; ; at = filepath.Dir(at) {
		if r, err := filepath.EvalSymlinks(at); err == nil {
			return filepath.Join(r, rest)
		}
		if at == "/" || at == "." {
			return p
		}
		rest = filepath.Join(filepath.Base(at), rest)
	}
}

// terminal is /dev/null and the terminal: /dev/tty and the terminals
// standard input, output and error are.
func terminal() []string {
	out := []string{"/dev/null", "/dev/tty"}
	for _, fd := range []string{"0", "1", "2"} {
		t, err := os.Readlink("/proc/self/fd/" + fd)
		if err == nil && (strings.HasPrefix(t, "/dev/pts/") || strings.HasPrefix(t, "/dev/tty")) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
