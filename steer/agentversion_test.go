package steer

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClaudeCodeTooOld(t *testing.T) {
	for _, tc := range []struct {
		v     string
		older bool
	}{
		{"2.1.197", true},
		{"2.1.197 (Claude Code)", true},
		{"2.1.267", true},
		{"1.9.999", true},
		{"2.1", true},
		{"2.1.268", false},
		{"2.1.268 (Claude Code)", false},
		{"v2.1.300", false},
		{"2.2.0", false},
		{"3.0.0-beta.1", false},
		{"10.0.0", false},
		{"", false},       // no version: nothing to say
		{"latest", false}, // not a version it can read
		{"2.x.1", false},  // nor this
		{"2", false},      // one number is not a version
		{"-1.2.3", false}, // nor a negative one
	} {
		t.Run(tc.v, func(t *testing.T) {
			got := ClaudeCodeTooOld(tc.v)
			assert.Equal(t, tc.older, got != "", got)
			if tc.older {
				assert.Contains(t, got, "older than "+MinClaudeCodeVersion)
				assert.Contains(t, got, "PermissionRequest")
			}
		})
	}
	t.Run("only a Claude Code session", func(t *testing.T) {
		assert.NotEmpty(t, (&Session{Agent: "Claude Code", AgentVersion: "2.1.197"}).Outdated())
		assert.Empty(t, (&Session{Agent: "Codex", AgentVersion: "0.1.0"}).Outdated())
		assert.Empty(t, (*Session)(nil).Outdated())
	})
}
