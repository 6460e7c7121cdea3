package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/hook"
)

// operationOf is call (the event's tool call, or as a person edited it) as the operation the policy decides,
// with its file changes as diffs computed here, beside the files (the
// hook runs on the agent's machine, in the session's directory). What each
// file held when its diff was made is kept (h.seen, a hash), so that an
// approval is bound to the content the person saw (changedSince).
func (h *hookCall) operationOf(call hook.ToolCall) hitl.Operation {
	h.seen = map[string]string{}
	read := func(path string) ([]byte, error) {
		b, err := hook.ReadLocal(path)
		h.seen[path] = contentHash(b, err)
		return b, err
	}
	return call.OperationAt(fmt.Sprintf("%s session %s in %s", h.agent, h.in.SessionID, h.in.CWD), h.in.CWD, read)
}

// changedSince names the first file (by path) whose content is no longer
// what its diff was made from; "" when every file is as it was.
func (h *hookCall) changedSince() string {
	paths := make([]string, 0, len(h.seen))
	for p := range h.seen {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if contentHash(hook.ReadLocal(p)) != h.seen[p] {
			return p
		}
	}
	return ""
}

// contentHash is what a file held: its bytes' SHA-256, or that it could
// not be read (absent, a directory, too large) and why.
func contentHash(b []byte, err error) string {
	if err != nil {
		return "unreadable: " + err.Error()
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// diffsKey tells one set of diffs from another: a question asked again
// for a changed file is a new question.
func diffsKey(diffs []hitl.FileDiff) string {
	var b strings.Builder
	for _, d := range diffs {
		fmt.Fprintf(&b, "%s\x00%s\x00%s\x00", d.Path, d.Change, d.Unified)
	}
	return digest(b.String())[:16]
}
