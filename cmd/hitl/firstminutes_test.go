package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/help/*.golden")

// runOffline runs a command with no service behind HITL_URL and an empty
// environment otherwise.
func runOffline(args ...string) cliResult {
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string {
		if k == "HITL_URL" {
			return "http://127.0.0.1:1"
		}
		return ""
	}}
	code := run(context.Background(), args, e)
	return cliResult{code, out.String(), errb.String()}
}

// Every command's --help prints its usage lines and flags on stdout, with
// the real tabs of Go's flag help, and exits 0; testdata/help holds them.
func TestHelpOfEveryCommand(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			r := runOffline(name, "--help")
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Empty(t, r.stderr)
			assert.True(t, strings.HasPrefix(r.stdout, "usage of hitl "+name+":\n  hitl "+name), r.stdout)
			assert.NotContains(t, r.stdout, "^I", "our own usage text is not filtered")
			if strings.Contains(r.stdout, "\n  -") {
				assert.Contains(t, r.stdout, "\n    \t", "flag help keeps its tabs")
			}
			golden := filepath.Join("testdata", "help", name+".golden")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, []byte(r.stdout), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./cmd/hitl -run TestHelpOfEveryCommand -update writes it")
			assert.Equal(t, string(want), r.stdout)
		})
	}
}

func TestUsageErrors(t *testing.T) {
	t.Run("a command's own message is not prefixed twice", func(t *testing.T) {
		for args, want := range map[string]string{
			"ask":                 "hitl ask needs a question: ",
			"hook":                "hitl hook needs the agent: ",
			"history":             "hitl history needs one run (",
			"run --run loop-1 x":  "hitl run: put the command after --: ",
			"version extra":       "hitl version takes no arguments",
			"ask x --colour blue": "hitl ask: flag provided but not defined: -colour",
		} {
			r := runOffline(strings.Fields(args)...)
			first, _, _ := strings.Cut(r.stderr, "\n")
			assert.True(t, strings.HasPrefix(first, want), "%s: %q", args, first)
			assert.NotContains(t, r.stderr, "hitl hitl")
			name := strings.Fields(args)[0]
			assert.NotContains(t, first, "hitl "+name+": hitl "+name, "%s: %q", args, first)
		}
	})
	t.Run("a bad flag shows the flag help with tabs, and what was typed made visible", func(t *testing.T) {
		r := runOffline("ask", "x", "--co\x1b[2Jlour")
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, `hitl ask: flag provided but not defined: -co<U+001B>[2Jlour`)
		assert.NotContains(t, r.stderr, "\x1b")
		assert.Contains(t, r.stderr, "usage of hitl ask:\n")
		assert.Contains(t, r.stderr, "\n  -yes-no\n    \ta yes/no question")
	})
	t.Run("a mistyped command prints one line with the closest command", func(t *testing.T) {
		for typed, want := range map[string]string{
			"pendng":     `hitl: unknown command "pendng"; did you mean hitl pending? (hitl --help lists the commands)` + "\n",
			"histroy":    `hitl: unknown command "histroy"; did you mean hitl history? (hitl --help lists the commands)` + "\n",
			"checkp":     `hitl: unknown command "checkp"; did you mean hitl checkpoint? (hitl --help lists the commands)` + "\n",
			"frobnicate": `hitl: unknown command "frobnicate" (hitl --help lists the commands)` + "\n",
			"\x1b[2J":    `hitl: unknown command "\x1b[2J" (hitl --help lists the commands)` + "\n",
		} {
			r := runOffline(typed)
			assert.Equal(t, exitUsage, r.code, typed)
			assert.Equal(t, strings.ReplaceAll(want, "\x1b", `\x1b`), r.stderr, typed)
			assert.Empty(t, r.stdout, "not the whole help")
		}
	})
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		r := runOffline(args...)
		assert.Equal(t, exitOK, r.code, args)
		assert.Equal(t, "hitl "+version()+"\n", r.stdout, args)
	}
	for name, tc := range map[string]struct {
		bi   *debug.BuildInfo
		want string
	}{
		"a release: the module version": {&debug.BuildInfo{Main: debug.Module{Version: "v1.4.2"}}, "v1.4.2"},
		"a checkout: devel and the revision": {&debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "false"}}}, "(devel) 0123abcd"},
		"a dirty checkout": {&debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "true"}}}, "(devel) 0123abcd dirty"},
		"no VCS information": {&debug.BuildInfo{}, "(devel)"},
	} {
		t.Run(name, func(t *testing.T) { assert.Equal(t, tc.want, buildVersion(tc.bi, true)) })
	}
	assert.Equal(t, "(unknown)", buildVersion(nil, false))
}
