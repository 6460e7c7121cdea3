package store

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// CompactResult reports what Compact did.
type CompactResult struct {
	Before, After int64 // file sizes in bytes
}

// Compact rewrites the stopped database at path into a new file holding
// only live pages (bbolt's compaction), then replaces the file with it.
// The service must be stopped: a file another process holds is refused
// with EUNAVAILABLE. The original is replaced only once the copy is
// complete and synced, so a crash leaves one or the other, whole.
func Compact(path string) (CompactResult, error) {
	var res CompactResult
	st, err := os.Stat(path)
	if err != nil {
		return res, fault.Errorf(fault.ENOTFOUND, "database %s: %v", path, err)
	}
	res.Before = st.Size()
	src, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if errors.Is(err, berrors.ErrTimeout) {
		return res, fault.Errorf(fault.EUNAVAILABLE, "database %s is in use by a running hitl: stop it first", path)
	}
	if err != nil {
		return res, fmt.Errorf("store: compact %s: %w", path, err)
	}
	defer src.Close()
	tmp := path + ".compact"
	_ = os.Remove(tmp)
	dst, err := bolt.Open(tmp, 0o600, boltOptions())
	if err != nil {
		return res, fmt.Errorf("store: compact %s: %w", path, err)
	}
	if err := bolt.Compact(dst, src, 64<<20); err != nil {
		_ = dst.Close()
		_ = os.Remove(tmp)
		return res, fmt.Errorf("store: compact %s: %w", path, err)
	}
	if err := dst.Sync(); err != nil {
		_ = dst.Close()
		return res, fmt.Errorf("store: compact %s: %w", path, err)
	}
	if err := dst.Close(); err != nil {
		return res, fmt.Errorf("store: compact %s: %w", path, err)
	}
	_ = src.Close()
	if err := os.Rename(tmp, path); err != nil {
		return res, fmt.Errorf("store: compact %s: %w", path, err)
	}
	if st, err := os.Stat(path); err == nil {
		res.After = st.Size()
	}
	return res, nil
}
