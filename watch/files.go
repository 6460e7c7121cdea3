package watch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// MaxRequestFile bounds request.json: a larger file is not read.
const MaxRequestFile = 64 << 10

// refusedError is a request file the watcher will not read: a symbolic
// link on the way to it or as it, not a regular file, or too large.
type refusedError struct{ why string }

func (e *refusedError) Error() string { return e.why }

// The files of a directory are reached from its root one name at a time
// (openat), never following a symbolic link past the root: .delta and
// .delta/interaction are opened as directories with O_NOFOLLOW, so that
// a link there (to another directory, holding what it likes) is refused
// rather than read from or written into, whatever is swapped in between
// two looks. The root is the directory the person named, followed as
// they named it.

// openInteraction opens root's .delta/interaction directory. It returns
// an error satisfying errors.Is(err, os.ErrNotExist) when a level is
// missing, and a *refusedError when one is a symbolic link or not a
// directory.
func openInteraction(root string) (*os.File, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	path := root
	for _, name := range []string{".delta", "interaction"} {
		path = filepath.Join(path, name)
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		_ = unix.Close(fd)
		switch {
		case errors.Is(err, unix.ELOOP):
			return nil, &refusedError{why: path + " is a symbolic link: not followed"}
		case errors.Is(err, unix.ENOTDIR):
			if isLink(path) {
				return nil, &refusedError{why: path + " is a symbolic link: not followed"}
			}
			return nil, &refusedError{why: path + " is not a directory"}
		case err != nil:
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		fd = next
	}
	return os.NewFile(uintptr(fd), path), nil
}

func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// readRequest reads root's request.json: only a regular file of at most
// MaxRequestFile bytes, opened without following a symbolic link and
// without blocking (a FIFO is refused, not waited on).
func readRequest(root string) ([]byte, error) {
	dir, err := openInteraction(root)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	path := filepath.Join(dir.Name(), RequestFile)
	fd, err := unix.Openat(int(dir.Fd()), RequestFile, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ELOOP):
		return nil, &refusedError{why: path + " is a symbolic link: not followed"}
	case err != nil:
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, &refusedError{why: fmt.Sprintf("%s is not a regular file (%s): not read", path, fi.Mode().Type())}
	case fi.Size() > MaxRequestFile:
		return nil, &refusedError{why: fmt.Sprintf("%s is larger than %d bytes: not read", path, MaxRequestFile)}
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxRequestFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxRequestFile {
		return nil, &refusedError{why: fmt.Sprintf("%s is larger than %d bytes: not read", path, MaxRequestFile)}
	}
	return b, nil
}

// writeResponse writes answer to root's response.txt the way an engine
// can never read half of it and nothing is written through a symbolic
// link: a new temporary file in the interaction directory (O_EXCL,
// O_NOFOLLOW, mode 0600), synced, then renamed over response.txt (a link
// there is replaced, not followed). On failure nothing is left behind.
// Errors never quote the answer.
func writeResponse(root, answer string) (err error) {
	dir, err := openInteraction(root)
	if err != nil {
		return err
	}
	defer dir.Close()
	dfd := int(dir.Fd())
	var r [8]byte
	_, _ = rand.Read(r[:])
	tmp := ".response-" + hex.EncodeToString(r[:]) + ".tmp"
	path := filepath.Join(dir.Name(), tmp)
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = unix.Unlinkat(dfd, tmp, 0)
		}
	}()
	f := os.NewFile(uintptr(fd), path)
	if err = f.Chmod(0o600); err == nil {
		if _, err = f.WriteString(answer); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = unix.Renameat(dfd, tmp, dfd, ResponseFile); err != nil {
		return fmt.Errorf("renaming %s to %s: %w", path, ResponseFile, err)
	}
	_ = unix.Fsync(dfd)
	return nil
}
