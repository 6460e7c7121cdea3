package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/hook"
)

// A person's edit of a tool call, and what the agent is told of it: the
// model's history must say what ran, not what it asked for.

// fileEdit is one edit of a file change a person approved with, which
// the hook asked again about with the edited change's diff.
type fileEdit struct {
	by, question string
	to           hook.ToolCall // the call as edited
}

// path is the file the edited change writes.
func (e fileEdit) path() string {
	return filePath(e.to)
}

func filePath(c hook.ToolCall) string {
	for _, k := range []string{"file_path", "notebook_path"} {
		if p, _ := c.Input[k].(string); p != "" {
			return p
		}
	}
	return "the file"
}

// maxToldContent bounds the edited text repeated to the model.
const maxToldContent = 4000

// updatedInput is the input the approved call runs with: the edited file
// change, or the approver's edit of the resource (a command, a path);
// nil when nobody edited it. false: the edit cannot be applied.
func (h *hookCall) updatedInput(v client.GateResult) (map[string]any, bool) {
	if h.edited != nil {
		return h.edited.Input, true
	}
	if v.Edited == "" {
		return nil, true
	}
	return h.call().Edited(v.Edited)
}

// toldOfEdit is what the model is told when a person changed its call
// (empty when nobody did): who changed what, and what ran instead, so
// that its history matches what ran.
func (h *hookCall) toldOfEdit(v client.GateResult, updated map[string]any) string {
	if updated == nil {
		return ""
	}
	orig := h.call()
	var b strings.Builder
	by := v.By
	if len(h.edits) > 0 {
		by = h.edits[len(h.edits)-1].by
	}
	fmt.Fprintf(&b, "A person (%s) edited this %s call in hitl before approving it, so it runs with their input, not yours.", by, orig.Tool)
	for _, k := range []string{"command", "file_path", "notebook_path", "url", "query", "path"} {
		was, _ := orig.Input[k].(string)
		now, _ := updated[k].(string)
		if was != now {
			fmt.Fprintf(&b, " %s: %q instead of %q.", k, now, was)
		}
	}
	for _, k := range []string{"content", "new_string", "edits"} {
		was, now := fmt.Sprint(orig.Input[k]), fmt.Sprint(updated[k])
		if _, ok := updated[k]; !ok || was == now {
			continue
		}
		text, ok := updated[k].(string)
		if !ok {
			j, _ := json.Marshal(updated[k])
			text = string(j)
		}
		if len(text) > maxToldContent {
			fmt.Fprintf(&b, " Its %s is theirs (%d bytes): read %s to see what it holds.", k, len(text), filePath(hook.ToolCall{Input: updated}))
			continue
		}
		fmt.Fprintf(&b, " Its %s is theirs:\n%s\n", k, text)
	}
	if v.Message != "" {
		fmt.Fprintf(&b, " Their message: %s", v.Message)
	}
	return strings.TrimSpace(b.String())
}
