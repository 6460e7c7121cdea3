package policy_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGitConfigRuns: the configuration entries that make git run a
// program (or read configuration that may) are the ones the edge reports.
func TestGitConfigRuns(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		runs       bool
	}{
		{"core.fsmonitor", "./hook.sh", true}, {"core.fsmonitor", "true", true}, {"core.fsmonitor", "false", false},
		{"core.pager", "less", true}, {"core.sshcommand", "ssh -i k", true}, {"core.hookspath", ".hooks", true},
		{"core.editor", "vim", true}, {"core.askpass", "x", true}, {"core.gitproxy", "x", true},
		{"diff.external", "x", true}, {"diff.pdf.textconv", "pdftotext", true}, {"diff.pdf.command", "x", true},
		{"diff.renames", "true", false}, {"filter.lfs.smudge", "git-lfs smudge", true}, {"filter.x.process", "x", true},
		{"gpg.program", "gpg2", true}, {"gpg.ssh.program", "x", true}, {"gpg.format", "ssh", false},
		{"alias.st", "status", true}, {"alias.x", "!sh", true}, {"include.path", "other", true},
		{"includeif.gitdir:~/w/.path", "w.inc", true}, {"pager.log", "x", true}, {"merge.ours.driver", "true", true},
		{"remote.origin.uploadpack", "x", true}, {"remote.origin.url", "git@h:r", false}, {"credential.helper", "store", true},
		{"log.showsignature", "true", true}, {"log.showsignature", "false", false}, {"pretty.sig", "%h %GS", true},
		{"pretty.short", "%h %s", false}, {"format.pretty", "%G?", true}, {"sequence.editor", "x", true},
		{"user.name", "A", false}, {"core.bare", "false", false}, {"uploadpack.packobjectshook", "x", true},
		{"submodule.x.update", "!sh", true}, {"submodule.x.update", "rebase", false},
	} {
		assert.Equal(t, tc.runs, policy.GitConfigRuns(tc.key, tc.value), "%s=%s", tc.key, tc.value)
	}
}

// TestGitConfigMakesGitNotUnderstood: a git command in a repository whose
// configuration runs programs is not understood, and the person reads
// which key runs what; an alias only counts for the command naming it, a
// credential helper only for one reaching a remote.
func TestGitConfigMakesGitNotUnderstood(t *testing.T) {
	rules := []hitl.Rule{
		{Name: "git-read", OpType: hitl.OpShell, Resource: "git status", Effect: allow},
		{Name: "git-log", OpType: hitl.OpShell, Resource: "git log", Effect: allow},
		{Name: "git-fetch", OpType: hitl.OpShell, Resource: "git fetch", Effect: allow},
		{Name: "ls", OpType: hitl.OpShell, Resource: "ls", Effect: allow},
	}
	for _, tc := range []struct {
		line   string
		found  []string
		effect hitl.Effect
		reason string
	}{
		{"git status", nil, allow, ""},
		{"git status", []string{"core.fsmonitor=./run.sh (file:.git/config)"}, ask, "core.fsmonitor=./run.sh (file:.git/config)"},
		{"git log -p", []string{"diff.x.textconv=./conv (file:.git/config)"}, ask, "diff.x.textconv"},
		{"ls && git status", []string{"GIT_EXTERNAL_DIFF=x (environment)"}, ask, "GIT_EXTERNAL_DIFF"},
		{"ls", []string{"core.fsmonitor=x (file:.git/config)"}, allow, ""},
		{"git status", []string{"alias.lg=!sh (file:/home/u/.gitconfig)"}, allow, ""},
		{"git log", []string{"credential.helper=store (file:/etc/gitconfig)"}, allow, ""},
		{"git fetch origin", []string{"credential.helper=!sh (file:.git/config)"}, ask, "credential.helper"},
	} {
		op := hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: tc.line, Agent: "api:ci", GitConfig: tc.found}
		d, err := policy.Decider{Rules: rules, Parse: shell.Parse}.Decide(op)
		require.NoError(t, err)
		assert.Equal(t, tc.effect, d.Effect, "%s %v: %+v", tc.line, tc.found, d.Parts)
		if tc.reason != "" {
			assert.Contains(t, d.Explain()+" "+d.Parts[len(d.Parts)-1].Reason, tc.reason, tc.line)
			assert.False(t, d.Learnable, tc.line)
		}
	}
}
