package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// An edit made at Claude Code's PermissionRequest reaches the model after
// the call ran: PermissionRequest's allow has no field the model reads, so
// the hook leaves a note on the agent's machine, keyed by the session, the
// tool and the input that runs, and the PostToolUse event of that call
// hands it to the model as additionalContext. PreToolUse tells the model
// at once (hook_edit.go's toldOfEdit), and needs no note.

// editNoteMaxAge is how long a note waits for its call's PostToolUse: a
// call the agent never made leaves a note nobody reads; it is removed by
// the next hook that leaves a note after this long.
const editNoteMaxAge = 24 * time.Hour

// editNoteDir is where notes wait: $XDG_CACHE_HOME/hitl/edit-notes, or
// ~/.cache/hitl/edit-notes; "" when neither is known (no note is left).
func (h *hookCall) editNoteDir() string {
	if d := h.e.getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "hitl", "edit-notes")
	}
	if home := h.e.getenv("HOME"); home != "" {
		return filepath.Join(home, ".cache", "hitl", "edit-notes")
	}
	return ""
}

// editNoteKey names the note of the call that runs input in this session.
func (h *hookCall) editNoteKey(input map[string]any) string {
	b, _ := json.Marshal([]any{h.agent, h.in.SessionID, h.in.ToolName, input})
	return digest(string(b))[:32]
}

// leaveEditNote leaves note for the PostToolUse of the call that runs
// input. A note that cannot be written is not fatal: the edited call still
// runs as the person approved it; only the model is not told.
func (h *hookCall) leaveEditNote(input map[string]any, note string) {
	dir := h.editNoteDir()
	if dir == "" || note == "" {
		return
	}
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	sweepEditNotes(dir)
	tmp, err := os.CreateTemp(dir, ".note-*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(note)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(dir, h.editNoteKey(input))) != nil {
		os.Remove(tmp.Name())
	}
}

// takeEditNote returns (and removes) the note left for this PostToolUse's
// call, "" when there is none.
func (h *hookCall) takeEditNote() string {
	dir := h.editNoteDir()
	if dir == "" {
		return ""
	}
	path := filepath.Join(dir, h.editNoteKey(map[string]any(h.in.ToolInput)))
	b, err := os.ReadFile(path)
	if err == nil {
		os.Remove(path)
	}
	return string(b)
}

// sweepEditNotes removes the notes in dir older than editNoteMaxAge. It
// runs when a note is left (an edit at PermissionRequest, rare), not on
// every PostToolUse, which reads one file at most.
func sweepEditNotes(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > editNoteMaxAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
