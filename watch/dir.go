package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// The files of the async mode (docs/protocol.md#the-file-bridge), under the engine's directory.
const (
	InteractionDir = ".delta/interaction"
	RequestFile    = "request.json"
	ResponseFile   = "response.txt"
)

// RunName is the name of the run a directory's questions are asked in:
// "watch-" + the directory's base name (letters, digits, '.', '_' and '-'
// kept, anything else '_', at most 40) + "-" + the first 8 hex digits of
// the SHA-256 of its absolute, cleaned path. The same directory is always
// the same run; two directories of the same name are not. (The CLI makes
// it the principal's own run: RunName + "@" + principal.)
func RunName(absDir string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(absDir)))
	base := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, filepath.Base(absDir))
	if len(base) > 40 {
		base = base[:40]
	}
	return "watch-" + base + "-" + hex.EncodeToString(sum[:])[:8]
}

// dir is one watched engine directory and what the watcher knows of it.
type dir struct {
	root string // absolute
	run  string

	poke    chan struct{} // a look at the files is due (wake)
	results chan result   // the outcomes of its askings

	// Touched by its goroutine only (Watcher.tend):
	active  *asking // the question asked for the current request, if any
	settled string  // the key of the request already dealt with
	bad     string  // the key of a bad request (or why it was refused) already reported
}

func (d *dir) interaction() string { return filepath.Join(d.root, InteractionDir) }
func (d *dir) request() string     { return filepath.Join(d.interaction(), RequestFile) }
func (d *dir) response() string    { return filepath.Join(d.interaction(), ResponseFile) }

// levels are the directories watched so that request.json's appearance
// is seen however much of its path is missing: DIR, DIR/.delta and
// DIR/.delta/interaction.
func (d *dir) levels() []string {
	return []string{d.root, filepath.Join(d.root, ".delta"), d.interaction()}
}

// exists reports whether path exists (an error other than not-existing
// counts as existing: the caller's read says what it is).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil || !os.IsNotExist(err)
}
