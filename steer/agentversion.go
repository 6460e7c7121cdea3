package steer

import (
	"fmt"
	"strconv"
	"strings"
)

// MinClaudeCodeVersion is the oldest Claude Code hitl supports. Before
// 2.1.268, Claude Code under `claude -p` sent no PermissionRequest to its
// hooks: its own refusal blamed "working directories", hitl never saw the
// prompt, and people waited for a question that never came.
const MinClaudeCodeVersion = "2.1.268"

// ClaudeCodeTooOld is what people are told about Claude Code version v
// (like "2.1.197", or "2.1.197 (Claude Code)" as claude --version prints
// it): why and how to update when it is older than MinClaudeCodeVersion;
// empty when it is not, or when v is not a version it can read.
func ClaudeCodeTooOld(v string) string {
	older, ok := versionBefore(v, MinClaudeCodeVersion)
	if !ok || !older {
		return ""
	}
	return fmt.Sprintf("Claude Code %s is older than %s, the oldest hitl supports: before it, claude -p sends no PermissionRequest to hooks, so hitl never sees its permission prompts. Update it: claude update (or npm install -g @anthropic-ai/claude-code@latest)",
		strings.Fields(v)[0], MinClaudeCodeVersion)
}

// Outdated is the warning about the session's agent version
// (ClaudeCodeTooOld), empty when there is nothing to say.
func (s *Session) Outdated() string {
	if s == nil || s.Agent != "Claude Code" {
		return ""
	}
	return ClaudeCodeTooOld(s.AgentVersion)
}

// versionBefore reports whether dotted version v (its first word; a
// leading v and a -suffix ignored) is before min; ok is false when v does
// not read as numbers and dots.
func versionBefore(v, min string) (older, ok bool) {
	a, ok := versionParts(v)
	if !ok {
		return false, false
	}
	b, _ := versionParts(min)
	for i := range max(len(a), len(b)) {
		x, y := part(a, i), part(b, i)
		if x != y {
			return x < y, true
		}
	}
	return false, true
}

func versionParts(v string) ([]int, bool) {
	f := strings.Fields(v)
	if len(f) == 0 {
		return nil, false
	}
	s, _, _ := strings.Cut(strings.TrimPrefix(f[0], "v"), "-")
	var out []int
	for _, p := range strings.Split(s, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out = append(out, n)
	}
	return out, len(out) >= 2
}

func part(p []int, i int) int {
	if i < len(p) {
		return p[i]
	}
	return 0
}
