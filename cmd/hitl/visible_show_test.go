package main

import (
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
)

// trojan is a Trojan-source line (CVE-2021-42574): raw, it reads as a
// comment after the string.
const trojan = "access_level = \"user\u202e \u2066// Check if admin\u2069 \u2066\""

// TestShowFlagsTrojanSource: hitl show shows the question (the agent's
// description), the command line, the context and each diff line with
// their direction-changing characters as code points, each flagged
// (testdata/diffs/trojan_source.golden).
func TestShowFlagsTrojanSource(t *testing.T) {
	const file = "/home/dev/app/src/auth.py"
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	q := &hitl.Question{ID: "q_ID", RunID: "r1", Type: hitl.Approval, ResponseType: hitl.ApprovalResponse, Status: hitl.StatusPending,
		CreatedAt: at, Question: "Set the level " + trojan,
		Operation: &hitl.Operation{Type: hitl.OpFileWrite, Description: "Set the level " + trojan, Resource: file, Context: "Because " + trojan,
			Diffs: []hitl.FileDiff{{Path: file, Change: hitl.FileModify, Added: 1, Removed: 1,
				Unified: "--- a" + file + "\n+++ b" + file + "\n@@ -1,2 +1,2 @@\n import os\n-access_level = \"user\"\n+" + trojan + "\n"}}}}
	shell := *q
	shell.Operation = &hitl.Operation{Type: hitl.OpShell, Description: q.Question, Resource: "echo '" + trojan + "'"}
	var b strings.Builder
	showQuestion(&b, q, q.RunID, at, false)
	b.WriteString("----\n")
	showQuestion(&b, &shell, shell.RunID, at, false)
	out := b.String()
	assert.False(t, strings.ContainsAny(out, "\u202e\u2066\u2069"), "no direction-changing character reaches the terminal")
	for _, want := range []string{
		"Set the level access_level = \"user<U+202E> <U+2066>// Check if admin<U+2069> <U+2066>\"\n⚠ The question contains characters that change how it reads\n",
		"Context: Because access_level = \"user<U+202E> <U+2066>// Check if admin<U+2069> <U+2066>\"\n⚠ The context contains characters that change how it reads\n",
		"+access_level = \"user<U+202E> <U+2066>// Check if admin<U+2069> <U+2066>\"\n⚠ The line above contains characters that change how it reads\n",
		"Operation: shell: echo 'access_level = \"user<U+202E> <U+2066>// Check if admin<U+2069> <U+2066>\"'\n  ⚠ The resource contains characters that change how it reads\n",
	} {
		assert.Contains(t, out, want)
	}
	diffGolden(t, "trojan_source", out)
}
