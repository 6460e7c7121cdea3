package policy

import (
	"path"
	"strings"

	"github.com/hitlbot/hitl"
)

// grantAdds are what everyday tools need beyond the words of their line,
// beside the argument table (argtable.go): each row names the command
// ("git", or "git commit" for one subcommand), what it adds and why, and
// has a row in grantadds_test.go. The paths in braces are found on the
// agent's machine (GrantAdd).
var grantAdds = []hitl.GrantAdd{
	{Command: "git", Exec: []string{"{gitexec}"}, Label: "git's helpers",
		Why: "git runs its own subcommands and helpers (git-remote-https, git-upload-pack…) from its exec path; no pager is granted, so git's pager stays off"},
	{Command: "git add git commit git tag git branch git stash git fetch git pull git merge git cherry-pick git revert git rebase git reset git checkout git switch git restore git rm git mv git init git notes git gc git am git apply",
		Write: []string{"{gitdir}"}, Label: "the repository's .git",
		Why: "these subcommands write the repository's .git directory: its index, objects, refs and logs"},
	{Command: "git checkout git switch git restore git reset git merge git stash git pull git rm git mv git clean git cherry-pick git revert git rebase git am git apply",
		Write: []string{"{worktree}"}, Label: "the working tree",
		Why: "these subcommands change the files of the working tree"},
	{Command: "git fetch git pull git push git clone git ls-remote", Net: []string{"*:443", "*:22"}, Label: "the remote",
		Why: "these subcommands reach the remote over HTTPS or SSH; which host is in the repository's config, so the port is granted (Landlock filters ports, not hosts)"},
	{Command: "go build go test go vet go run go install go list", Exec: []string{"{gotool}", "{tmp}"}, Write: []string{"{gocache}", "{tmp}"},
		Label: "go's toolchain, build cache and temporary directory",
		Why:   "go compiles with the tools in GOROOT/pkg/tool, keeps its build cache in GOCACHE, and builds (and for test and run, runs) its programs in the temporary directory"},
	{Command: "npm test npm t npm run npm run-script npm start", Exec: []string{"sh", "node", "{scripts}", "{worktree}/node_modules/.bin"},
		Write: []string{"{npmcache}"}, Label: "the package's scripts",
		Why: "npm runs the package.json script with sh, its programs from node_modules/.bin, and writes its logs and cache under ~/.npm"},
	{Command: "make", Exec: []string{"sh", "{scripts}"}, Label: "the Makefile's recipes",
		Why: "make runs each recipe line (with sh when it needs a shell): the programs the Makefile's recipes name"},
}

// addsFor are the rows of grantAdds for a command's words (program and
// arguments, as rules match them).
func addsFor(words []string) []hitl.GrantAdd {
	if len(words) == 0 {
		return nil
	}
	name := path.Base(words[0])
	sub := ""
	if t, ok := commandArgs[name]; ok && t.Sub != nil {
		// past the global options, as the command reads them
		if end, _ := t.scan(name, words[1:], true, ""); end < len(words)-1 {
			sub = words[1+end]
			if sub == "--" && end+2 < len(words) {
				sub = words[2+end]
			}
		}
	} else if len(words) > 1 && !strings.HasPrefix(words[1], "-") {
		sub = words[1] // go test
	}
	var out []hitl.GrantAdd
	for i, a := range grantAdds {
		for _, c := range grantAddCommands[i] {
			if c == name || sub != "" && c == name+" "+sub {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// commandsOf splits a row's Command ("git add git commit") into its
// commands ("git add", "git commit").
func commandsOf(s string) []string {
	f := strings.Fields(s)
	if len(f) == 1 {
		return f
	}
	var out []string
	for i := 0; i+1 < len(f); i += 2 {
		out = append(out, f[i]+" "+f[i+1])
	}
	return out
}

// grantAddCommands are grantAdds' commands, split once.
var grantAddCommands = func() [][]string {
	out := make([][]string, len(grantAdds))
	for i, a := range grantAdds {
		out[i] = commandsOf(a.Command)
	}
	return out
}()
