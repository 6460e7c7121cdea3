package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeHooks is README's hooks block for agent (claude or codex), on
// the events hitl wires.
func readmeHooks(agent string, events []steer.HookEvent) map[string]any {
	hooks := map[string]any{}
	for _, ev := range events {
		hooks[string(ev)] = []any{map[string]any{"matcher": "*", "hooks": []any{
			map[string]any{"type": "command", "command": "hitl hook " + agent, "timeout": 600}}}}
	}
	return map[string]any{"hooks": hooks}
}

func writeJSON(t *testing.T, file string, v any) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, b, 0o644))
}

func writeScript(t *testing.T, file, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
}

// TestDoctor runs hitl doctor against a fake HOME, project and PATH and
// a real service (or none), one case a row: the line each check prints
// and the exit code.
func TestDoctor(t *testing.T) {
	m := startMain(t)
	claudeAll := readmeHooks("claude", steer.HookEvents)
	claudeSome := readmeHooks("claude", steer.HookEvents[:5])
	other := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"hooks": []any{
		map[string]any{"type": "command", "command": "my-linter --check"}}}}}}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, home, project, bin string)
		down  bool // no service at HITL_URL
		code  int
		lines []string // each a line's start, in the output
	}{
		{
			name: "everything wired",
			setup: func(t *testing.T, home, project, bin string) {
				writeScript(t, filepath.Join(bin, "hitl"), "exit 0")
				writeScript(t, filepath.Join(bin, "claude"), `echo "2.1.300 (Claude Code)"`)
				writeJSON(t, filepath.Join(home, ".claude", "settings.json"), claudeAll)
				writeJSON(t, filepath.Join(home, ".codex", "hooks.json"), readmeHooks("codex", hookEventsOf["codex"]))
				writeJSON(t, filepath.Join(project, ".mcp.json"), map[string]any{"mcpServers": map[string]any{"hitl": map[string]any{"command": "hitl", "args": []string{"mcp"}}}})
			},
			code: exitOK,
			lines: []string{
				"ok       hitl on PATH: ",
				"ok       the service: http://127.0.0.1:",
				"ok       Claude Code hooks: every event (7) runs hitl hook claude, in ~/.claude/settings.json",
				"ok       Claude Code version: 2.1.300 (Claude Code) (hitl needs " + steer.MinClaudeCodeVersion + " or later)",
				"ok       Codex hooks: every event (6) runs hitl hook codex, in ~/.codex/hooks.json",
				"ok       MCP entry: hitl mcp in ",
			},
		},
		{
			name: "PreToolUse with --decide-tools=false: hitl is never asked in acceptEdits, auto or bypassPermissions",
			setup: func(t *testing.T, home, project, bin string) {
				writeScript(t, filepath.Join(bin, "hitl"), "exit 0")
				undecided := readmeHooks("claude", steer.HookEvents)
				undecided["hooks"].(map[string]any)["PreToolUse"] = []any{map[string]any{"matcher": "*", "hooks": []any{
					map[string]any{"type": "command", "command": "hitl hook claude --decide-tools=false", "timeout": 600}}}}
				writeJSON(t, filepath.Join(home, ".claude", "settings.json"), undecided)
			},
			code: exitFailure,
			lines: []string{
				"problem  Claude Code hooks: ~/.claude/settings.json runs hitl hook claude --decide-tools=false at PreToolUse: in acceptEdits, auto and bypassPermissions modes Claude Code sends no PermissionRequest, so hitl is never asked; fix: drop --decide-tools=false",
			},
		},
		{
			name: "a hook the agent stops before hitl stops waiting",
			setup: func(t *testing.T, home, project, bin string) {
				writeScript(t, filepath.Join(bin, "hitl"), "exit 0")
				short := readmeHooks("claude", steer.HookEvents)
				short["hooks"].(map[string]any)["PermissionRequest"] = []any{map[string]any{"matcher": "*", "hooks": []any{
					map[string]any{"type": "command", "command": "hitl hook claude", "timeout": 60}}}}
				writeJSON(t, filepath.Join(home, ".claude", "settings.json"), short)
			},
			code: exitFailure,
			lines: []string{
				"problem  Claude Code hooks: ~/.claude/settings.json at PermissionRequest: hitl hook waits 9m0s for people, but its timeout is 60s: the agent stops the hook first; fix: keep hitl hook's --wait (default 9m0s) below the hook's timeout",
			},
		},
		{
			name: "a --wait longer than the agents' default timeout, and one that is no duration",
			setup: func(t *testing.T, home, project, bin string) {
				writeScript(t, filepath.Join(bin, "hitl"), "exit 0")
				long := readmeHooks("claude", steer.HookEvents)
				long["hooks"].(map[string]any)["PreToolUse"] = []any{map[string]any{"matcher": "*", "hooks": []any{
					map[string]any{"type": "command", "command": "hitl hook claude --wait 20m"}}}}
				writeJSON(t, filepath.Join(home, ".claude", "settings.json"), long)
				bad := readmeHooks("codex", hookEventsOf["codex"])
				bad["hooks"].(map[string]any)["PermissionRequest"] = []any{map[string]any{"hooks": []any{
					map[string]any{"type": "command", "command": "hitl hook codex --wait=soon", "timeout": 600}}}}
				writeJSON(t, filepath.Join(home, ".codex", "hooks.json"), bad)
			},
			code: exitFailure,
			lines: []string{
				"problem  Claude Code hooks: ~/.claude/settings.json at PreToolUse: hitl hook waits 20m0s for people, but the agent's default timeout is 600s: the agent stops the hook first",
				"problem  Codex hooks: ~/.codex/hooks.json at PermissionRequest: --wait soon is not a duration (like 9m)",
			},
		},
		{
			name: "the hooks split between user and project settings, a full path to hitl, MCP for Codex",
			setup: func(t *testing.T, home, project, bin string) {
				writeScript(t, filepath.Join(bin, "hitl"), "exit 0")
				writeJSON(t, filepath.Join(home, ".claude", "settings.json"), claudeSome)
				rest := readmeHooks("claude", steer.HookEvents[5:])
				writeJSON(t, filepath.Join(project, ".claude", "settings.local.json"), rest)
				require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "settings.json"),
					[]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/home/dev/go/bin/hitl hook claude"}]}]}}`), 0o644))
				require.NoError(t, os.MkdirAll(filepath.Join(home, ".codex"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(home, ".codex", "config.toml"),
					[]byte("model = \"o3\"\n\n[mcp_servers.hitl]\ncommand = \"hitl\"\nargs = [\"mcp\"]\nenv = { HITL_URL = \"http://127.0.0.1:7070\" }\n"), 0o644))
			},
			code: exitOK,
			lines: []string{
				"ok       Claude Code hooks: every event (7) runs hitl hook claude, in ~/.claude/settings.json, ",
				"--       Claude Code version: claude is not on PATH",
				"--       Codex hooks: no ~/.codex/hooks.json or .codex/hooks.json",
				"ok       MCP entry: hitl mcp in ~/.codex/config.toml",
			},
		},
		{
			name: "nothing wired, the service down",
			setup: func(t *testing.T, home, project, bin string) {
				writeJSON(t, filepath.Join(project, ".claude", "settings.json"), other)
			},
			down: true,
			code: exitFailure,
			lines: []string{
				"problem  hitl on PATH: not found; the hooks and MCP entries run hitl by name; fix: go install ./cmd/hitl",
				"problem  the service: cannot reach http://127.0.0.1:1 (",
				"problem  Claude Code hooks: " + "PROJECT/.claude/settings.json run hitl on no event; fix: add README's hooks block",
				"--       MCP entry: no MCP entry runs hitl mcp",
			},
		},
		{
			name: "some hooks missing, an old Claude Code",
			setup: func(t *testing.T, home, project, bin string) {
				writeScript(t, filepath.Join(bin, "hitl"), "exit 0")
				writeScript(t, filepath.Join(bin, "claude"), `echo "2.1.197 (Claude Code)"`)
				writeJSON(t, filepath.Join(home, ".claude", "settings.json"), claudeSome)
			},
			code: exitFailure,
			lines: []string{
				"problem  Claude Code hooks: ~/.claude/settings.json run hitl on 5 of 7 events; missing Stop, SessionEnd; fix: ",
				"problem  Claude Code version: Claude Code 2.1.197 is older than " + steer.MinClaudeCodeVersion + ", the oldest hitl supports",
			},
		},
		{
			name: "no Claude Code settings at all; a broken Codex file",
			setup: func(t *testing.T, home, project, bin string) {
				writeScript(t, filepath.Join(bin, "hitl"), "exit 0")
				require.NoError(t, os.MkdirAll(filepath.Join(home, ".codex"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(home, ".codex", "hooks.json"), []byte(`{"hooks": `), 0o644))
			},
			code: exitFailure,
			lines: []string{
				"problem  Claude Code hooks: no ~/.claude/settings.json, .claude/settings.json or .claude/settings.local.json; fix: ",
				"problem  Codex hooks: ~/.codex/hooks.json cannot be read: ",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			home, project, bin := filepath.Join(root, "home"), filepath.Join(root, "project"), filepath.Join(root, "bin")
			for _, d := range []string{home, project, bin} {
				require.NoError(t, os.MkdirAll(d, 0o755))
			}
			tc.setup(t, home, project, bin)
			url := m.URL()
			if tc.down {
				url = "http://127.0.0.1:1"
			}
			var out, errb bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string {
				return map[string]string{"HOME": home, "PATH": bin, "HITL_URL": url, "USER": "tester"}[k]
			}}
			code := run(context.Background(), []string{"doctor", "--dir", project}, e)
			got := strings.ReplaceAll(out.String(), project, "PROJECT")
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", got, errb.String())
			for _, want := range tc.lines {
				assert.Contains(t, "\n"+got, "\n"+want, "stdout:\n%s", got)
			}
			assert.Len(t, strings.Split(strings.TrimSpace(got), "\n"), 7, "one line per check")
			if tc.code != exitOK {
				assert.Contains(t, errb.String(), "problem(s); each line above says its fix")
			}
		})
	}
}
