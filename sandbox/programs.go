package sandbox

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A program to execute is a file: its name is looked up on PATH, its
// symlinks resolved (Landlock checks the file a path leads to). Running it
// needs more than the file: an ELF program the interpreter its PT_INTERP
// names (ld.so, opened by the kernel for execution too), a script the
// interpreter its #! line names (and, for #!/usr/bin/env NAME, NAME on
// PATH). Shared libraries are only read (mmap), so they need reading, not
// execution.

// maxInterpreters bounds the chain script → interpreter → interpreter.
const maxInterpreters = 4

// Resolve returns the files that executing prog needs to execute: the
// program's own file, then its interpreters. path is the PATH to look
// names up on; a directory is returned as it is (everything beneath it).
func Resolve(prog, path string) ([]string, error) {
	file, err := lookPath(prog, path)
	if err != nil {
		return nil, err
	}
	out := []string{file}
	for i := 0; i < maxInterpreters; i++ {
		if fi, err := os.Stat(file); err != nil || fi.IsDir() {
			return out, nil
		}
		next, err := interpreter(file, path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", prog, err)
		}
		if len(next) == 0 || contains(out, next[len(next)-1]) {
			return out, nil
		}
		out = append(out, next...)
		file = next[len(next)-1]
	}
	return out, nil
}

// lookPath finds prog as execve would be handed it: a name with a slash
// is a path, any other is looked up on path; the result has its symlinks
// resolved.
func lookPath(prog, path string) (string, error) {
	if prog == "" {
		return "", errors.New("an empty program name")
	}
	if strings.Contains(prog, "/") {
		abs, err := filepath.Abs(prog)
		if err != nil {
			return "", err
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return "", fmt.Errorf("program %s: %w", prog, err)
		}
		return real, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, prog)
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			continue
		}
		return lookPath(p, path)
	}
	return "", fmt.Errorf("program %s is not on PATH", prog)
}

// interpreter is what the kernel also opens to execute file: its ELF
// interpreter or its #! interpreter (none: a static program), and for
// #!/usr/bin/env NAME, env and then NAME.
func interpreter(file, path string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 4)
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, nil // shorter than a header: nothing it needs
	}
	switch {
	case string(head) == "\x7fELF":
		e, err := elf.NewFile(f)
		if err != nil {
			return nil, fmt.Errorf("%s is not an ELF file it can read: %w", file, err)
		}
		for _, p := range e.Progs {
			if p.Type != elf.PT_INTERP {
				continue
			}
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				return nil, fmt.Errorf("%s: its PT_INTERP: %w", file, err)
			}
			interp, err := lookPath(strings.TrimRight(string(b), "\x00"), path)
			return []string{interp}, err
		}
		return nil, nil
	case string(head[:2]) == "#!":
		line, _ := bufio.NewReader(f).ReadString('\n')
		fields := strings.Fields(strings.TrimPrefix(line, "#!"))
		if len(fields) == 0 {
			return nil, nil
		}
		interp, err := lookPath(fields[0], path)
		if err != nil {
			return nil, err
		}
		if filepath.Base(interp) == "env" && len(fields) > 1 && !strings.HasPrefix(fields[1], "-") {
			// #!/usr/bin/env node: env is executed, then node
			named, err := lookPath(fields[1], path)
			return []string{interp, named}, err
		}
		return []string{interp}, nil
	}
	return nil, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
