package watch

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeResponse writes answer to path the way an engine can never read
// half of it: a temporary file in the same directory (mode 0600), synced,
// then renamed over path. On failure nothing is left behind. Errors never
// quote the answer.
func writeResponse(path, answer string) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".response-*.tmp")
	if err != nil {
		return fmt.Errorf("creating a temporary file beside %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err == nil {
		if _, err = f.WriteString(answer); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("renaming %s to %s: %w", tmp, path, err)
	}
	return nil
}
