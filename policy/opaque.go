package policy

import (
	"path"
	"strings"
)

// What a simple command may run that the policy cannot see: a string
// handed to a shell or an interpreter, another command run by a wrapper,
// a script read from a file or from standard input. Such a command asks
// (a deny rule that matches it still denies); it is never allowed by a
// rule, configured or learned, since the rule would match the wrapper and
// not what it runs.

// shells run whatever they are given: a -c string, a script file, or
// standard input.
var shells = set("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "busybox", "pwsh", "powershell", "cmd", "cmd.exe")

// wrappers run another command (or a string) given in their arguments.
var wrappers = set("eval", "exec", "source", ".", "xargs", "sudo", "doas", "su", "runuser", "pkexec", "command", "builtin",
	"nohup", "nice", "ionice", "timeout", "time", "watch", "stdbuf", "setsid", "chroot", "flock", "unbuffer", "script",
	"strace", "ltrace", "gdb", "lldb", "valgrind", "trap", "parallel", "ssh", "chpst", "taskset", "numactl", "systemd-run",
	"nsenter", "unshare", "firejail", "proot", "fakeroot", "caffeinate")

// interpreters run a string given with one of their flags (python -c,
// node -e), or a script from standard input when given no arguments.
var interpreters = map[string][]string{
	"python": {"-c", "-i"}, "python2": {"-c", "-i"}, "python3": {"-c", "-i"}, "pypy": {"-c", "-i"}, "pypy3": {"-c", "-i"},
	"node": nodeFlags, "nodejs": nodeFlags,
	"deno": {"eval"}, "bun": {"-e", "--eval", "-p", "--print"},
	"perl": {"-e", "-E", "-i", "-I", "-M", "-m", "-x", "-d"}, "ruby": {"-e", "-r", "-I", "-i", "-x", "-S", "-C", "--require"}, "php": {"-r"}, "lua": {"-e"}, "luajit": {"-e"},
	"Rscript": {"-e"}, "R": {"-e"}, "julia": {"-e", "--eval", "-E", "--print"}, "osascript": {"-e"},
	"tclsh": nil, "wish": nil, "irb": nil, "jshell": nil,
}

var nodeFlags = []string{"-e", "--eval", "-p", "--print", "-r", "--require", "--import", "--loader", "--experimental-loader",
	"-i", "--interactive", "--inspect", "--inspect-brk", "--env-file"}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// builtins are the shell's own commands that evaluate text, assign
// through a name (an array subscript is evaluated: a[$(cmd)]), change
// how later commands run or are read, or run another command: never
// understood.
var builtins = map[string]string{
	"eval": "runs a string as shell code", "exec": "replaces the shell with another command",
	"source": "runs a script file", ".": "runs a script file", "let": "evaluates arithmetic",
	"trap": "runs a string as shell code later", "alias": "changes what a later command name runs",
	"unalias": "changes what a later command name runs", "enable": "loads or turns off shell builtins",
	"builtin": "runs another command", "read": "assigns through a name", "mapfile": "assigns through a name",
	"readarray": "assigns through a name", "getopts": "assigns through a name", "unset": "evaluates a subscript and changes the environment",
	"declare": "assigns through a name", "typeset": "assigns through a name", "local": "assigns through a name",
	"export": "changes the environment of later commands", "readonly": "assigns through a name",
	"hash": "changes which program a name runs", "fc": "runs commands from the history in an editor",
	"bind": "binds keys to commands", "complete": "runs commands on completion", "compgen": "runs commands",
	"shopt": "changes how later commands are read", "set": "changes how later commands run",
	"coproc": "runs a coprocess", "wait": "may assign through a name (-p)", "caller": "", "select": "runs a loop",
	"pushd": "changes the directory", "popd": "changes the directory",
}

// commandView is what the policy understands of one simple command.
type commandView struct {
	// why it is not understood ("" when it is): never allowed by a rule,
	// never learnable.
	why string
	// writes are the files its options and operands write (tee, sort -o).
	writes []ShellWord
	// match is what rules match: the command itself, or for env CMD, CMD.
	match ShellCommand
}

// understand reads one simple command: its words must be literal, it sets
// no variables, it is no builtin that evaluates or assigns, no shell,
// wrapper or interpreter running a string, and its arguments pass the
// argument table.
func understand(c ShellCommand) commandView {
	v := commandView{match: c}
	if len(c.Args) == 0 {
		if len(c.Assigns) > 0 {
			v.why = "it assigns a shell variable, which changes what later commands do"
			return v
		}
		v.why = "it runs no command"
		return v
	}
	for _, ws := range [][]ShellWord{c.Assigns, c.Args} {
		for _, w := range ws {
			if !w.Literal {
				v.why = "part of it is computed when it runs: " + w.Text
				return v
			}
		}
	}
	if len(c.Assigns) > 0 {
		name, _, _ := strings.Cut(c.Assigns[0].Value, "=")
		v.why = "it sets " + name + " for the command, which may change what it runs"
		return v
	}
	name := c.Args[0].Value
	base := path.Base(name)
	args := values(c.Args[1:])
	if why, ok := builtins[name]; ok && why != "" {
		v.why = name + " " + why
		return v
	}
	switch {
	case name == "command":
		if len(args) > 0 && (args[0] == "-v" || args[0] == "-V") {
			return v
		}
		v.why = "command runs another command"
		return v
	case base == "env":
		if len(args) > 0 && strings.HasPrefix(args[0], "-") {
			// -S splits a string into a command; -i, -u, -C change
			// what the command runs with
			v.why = "env " + args[0] + " splits a string into a command or changes what the command runs with"
			return v
		}
		if len(args) > 0 && strings.Contains(args[0], "=") {
			v.why = "env " + args[0] + " sets a variable for the command it runs"
			return v
		}
		if len(args) == 0 {
			return v
		}
		inner := understand(ShellCommand{Args: c.Args[1:]})
		return inner // env CMD is CMD
	case shells[base]:
		v.why = base + " runs a script the policy cannot see (a -c string, a file or standard input)"
		return v
	case wrappers[base]:
		v.why = base + " runs another command or a string"
		return v
	}
	if why := interpreterCode(base, args); why != "" {
		v.why = why
		return v
	}
	if t, ok := commandArgs[base]; ok {
		why, writes := t.verdict(base, args)
		if why != "" {
			v.why = why
			return v
		}
		for _, w := range writes {
			if w != "-" && w != "" {
				v.writes = append(v.writes, literalWord(w))
			}
		}
	}
	return v
}

func values(ws []ShellWord) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Value
	}
	return out
}

// literalWord is a file name taken from an option's value: a ~ at its
// start is not expanded by the shell (--output=~/x), so it is a plain
// name.
func literalWord(s string) ShellWord {
	return ShellWord{Value: s, Text: s, Literal: true}
}

// interpreterCode says why an interpreter's arguments run code the policy
// cannot see, or "".
func interpreterCode(base string, args []string) string {
	flags, ok := interpreters[base]
	if !ok && !strings.HasPrefix(base, "python3.") {
		return ""
	}
	if strings.HasPrefix(base, "python") {
		flags = interpreters["python"]
	}
	if len(args) == 0 || args[0] == "-" {
		return base + " reads a program from standard input"
	}
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" {
			break // the script file: what follows are its arguments
		}
		for _, f := range flags {
			if a == f || strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"=") ||
				len(f) == 2 && !strings.HasPrefix(a, "--") && strings.IndexByte(a[1:], f[1]) >= 0 {
				return base + " " + a + " runs a program given as a string or loads code"
			}
		}
	}
	return ""
}

// dangerousEnv are variables that change which program runs or what it
// loads: an assignment of one makes the command opaque.
var dangerousEnv = set("PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH",
	"BASH_ENV", "ENV", "PROMPT_COMMAND", "PYTHONPATH", "PYTHONSTARTUP", "NODE_OPTIONS", "PERL5OPT", "RUBYOPT",
	"GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GIT_EDITOR", "EDITOR", "VISUAL", "PAGER", "GIT_PAGER", "IFS", "SHELLOPTS", "BASHOPTS")

// shellScript is the script a shell runs from its -c argument, when it is
// literal.
func shellScript(c ShellCommand) (string, bool) {
	if len(c.Args) < 3 || !c.Args[0].Literal || !shells[path.Base(c.Args[0].Value)] {
		return "", false
	}
	for i, a := range c.Args[1 : len(c.Args)-1] {
		if a.Literal && strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "--") && strings.Contains(a.Value, "c") {
			next := c.Args[i+2]
			return next.Value, next.Literal
		}
	}
	return "", false
}
