package policy

import (
	"path"
	"slices"
	"strings"
)

// What runs beyond the words: git reads its configuration (the
// repository's .git/config, the user's and the system's, what they
// include, and what the environment adds) and some of it names programs
// git runs on lines that look read-only: git status runs core.fsmonitor,
// git diff runs diff.external and textconv filters, git log runs the
// pager and gpg. The edge on the agent's machine lists the entries of the
// repository a line's git runs in for which GitConfigRuns holds
// (Operation.GitConfig); a git command of the line is then not
// understood, and the person reads which key runs what.

// GitConfigRuns reports whether the git configuration entry key=value
// makes git run a program (or read more configuration that may). key is
// as git config --list prints it: section and name in lower case.
func GitConfigRuns(key, value string) bool {
	k := strings.ToLower(key)
	section, rest, _ := strings.Cut(k, ".")
	name := rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		name = rest[i+1:]
	}
	falsy := slices.Contains([]string{"", "false", "no", "off", "0"}, strings.ToLower(strings.TrimSpace(value)))
	switch k {
	case "core.fsmonitor":
		return !falsy
	case "core.pager", "core.editor", "core.sshcommand", "core.askpass", "core.gitproxy", "core.hookspath",
		"core.alternaterefscommand", "diff.external", "gpg.program", "sequence.editor", "interactive.difffilter",
		"uploadpack.packobjectshook", "web.browser", "include.path":
		return true
	case "log.showsignature", "commit.gpgsign", "tag.gpgsign", "push.gpgsign":
		return !falsy
	case "format.pretty":
		return strings.Contains(value, "%G")
	}
	switch section {
	case "alias", "pager", "includeif", "filter", "gpg", "browser", "man", "difftool", "mergetool", "sendemail":
		return section != "gpg" || name == "program"
	case "pretty":
		return strings.Contains(value, "%G")
	case "diff":
		return name == "textconv" || name == "command"
	case "merge":
		return name == "driver"
	case "remote":
		return name == "uploadpack" || name == "receivepack" || name == "vcs"
	case "submodule":
		return name == "update" && strings.HasPrefix(value, "!")
	case "credential":
		return name == "helper"
	}
	return false
}

// GitEnvRuns are the environment variables that make git run a program
// or read its repository elsewhere.
var GitEnvRuns = []string{"GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND",
	"GIT_ASKPASS", "GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	"GIT_TEMPLATE_DIR", "GIT_ALTERNATE_OBJECT_DIRECTORIES"}

// gitRuns says why the git command c is not understood given the entries
// the edge found (KEY=VALUE (ORIGIN)), or "" when none applies to it. An
// alias applies only to a command that names it, a credential helper only
// to one that reaches a remote.
func gitRuns(c ShellCommand, found []string) string {
	if len(c.Args) == 0 || path.Base(c.Args[0].Value) != "git" || len(found) == 0 {
		return ""
	}
	var hits []string
	for _, f := range found {
		key, _, _ := strings.Cut(f, "=")
		names := func(words ...string) bool {
			for _, w := range c.Args[1:] {
				if slices.ContainsFunc(words, func(x string) bool { return strings.EqualFold(w.Value, x) }) {
					return true
				}
			}
			return false
		}
		k := strings.ToLower(key)
		if a, ok := strings.CutPrefix(k, "alias."); ok && !names(a) {
			continue
		}
		if strings.HasPrefix(k, "credential.") && !names("fetch", "pull", "push", "clone", "ls-remote", "remote", "submodule") {
			continue // a credential helper runs when git reaches a remote
		}
		hits = append(hits, f)
	}
	if len(hits) == 0 {
		return ""
	}
	if len(hits) > 3 {
		hits = append(hits[:3], "…")
	}
	return "git runs programs its configuration names here: " + strings.Join(hits, "; ")
}

// GitDirs are the directories the line's git commands run in: the working
// directory and where each cd goes, and each git -C DIR placed in them;
// none when the line runs no git, or when it runs git somewhere the
// policy cannot place (its git commands are then judged as they are).
func (l *CommandLine) GitDirs(home, cwd string) []string {
	ld := directories(l, home, cwd)
	var out []string
	add := func(d string) {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, c := range l.Commands {
		if len(c.Args) == 0 || path.Base(c.Args[0].Value) != "git" {
			continue
		}
		placedC := false
		for i := 1; i+1 < len(c.Args); i++ {
			if c.Args[i].Value == "-C" && c.Args[i+1].Literal {
				_, rs := place(c.Args[i+1].Value, c.Args[i+1].Tilde(), home, cwd, ld)
				for _, r := range rs {
					add(r.value)
				}
				placedC = true
			}
		}
		if !placedC {
			for _, d := range ld.dirs {
				add(d)
			}
		}
	}
	return out
}
