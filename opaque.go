package hitl

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
	"python": {"-c"}, "python2": {"-c"}, "python3": {"-c"}, "pypy": {"-c"}, "pypy3": {"-c"},
	"node": {"-e", "--eval", "-p", "--print"}, "nodejs": {"-e", "--eval", "-p", "--print"},
	"deno": {"eval"}, "bun": {"-e", "--eval", "-p", "--print"},
	"perl": {"-e", "-E"}, "ruby": {"-e"}, "php": {"-r"}, "lua": {"-e"}, "luajit": {"-e"},
	"Rscript": {"-e"}, "R": {"-e"}, "julia": {"-e", "--eval", "-E", "--print"}, "osascript": {"-e"},
	"tclsh": nil, "wish": nil, "irb": nil, "jshell": nil,
}

// scriptable are interpreters whose program is always a string in their
// arguments (awk '{ system("…") }').
var scriptable = set("awk", "gawk", "mawk", "nawk")

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// opaqueCommand says why c runs something the policy cannot see, or "".
func opaqueCommand(c ShellCommand) string {
	if len(c.Args) == 0 {
		if len(c.Assigns) > 0 {
			return "" // a bare assignment: decided as it is written
		}
		return "runs no command"
	}
	name := c.Args[0]
	if !name.Literal {
		return "its command name " + name.Text + " is computed when it runs"
	}
	base := path.Base(name.Value)
	for _, a := range c.Assigns {
		if v, _, _ := strings.Cut(a.Value, "="); dangerousEnv[v] {
			return "it sets " + v + ", which changes what runs"
		}
	}
	args := c.Args[1:]
	switch {
	case shells[base]:
		return base + " runs a script the policy cannot see (a -c string, a file or standard input)"
	case wrappers[base]:
		return base + " runs another command or a string"
	case base == "env":
		for _, a := range args {
			if !strings.HasPrefix(a.Value, "-") && !strings.Contains(a.Value, "=") {
				return "env runs another command"
			}
		}
	case base == "find":
		for _, a := range args {
			switch a.Value {
			case "-exec", "-execdir", "-ok", "-okdir":
				return "find " + a.Value + " runs another command"
			}
		}
	case base == "git":
		for i, a := range args {
			if a.Value == "-c" && i+1 < len(args) || strings.HasPrefix(a.Value, "--config-env") || strings.HasPrefix(a.Value, "--exec-path") {
				return "git " + a.Value + " may change what git runs"
			}
		}
	case scriptable[base]:
		return base + " runs a program given as a string"
	}
	if flags, ok := interpreters[base]; ok || strings.HasPrefix(base, "python3.") {
		if len(args) == 0 {
			return base + " reads a program from standard input"
		}
		for _, a := range args {
			for _, f := range flags {
				if a.Value == f || (len(f) == 2 && strings.HasPrefix(a.Value, f) && !strings.HasPrefix(a.Value, "--")) {
					return base + " " + f + " runs a program given as a string"
				}
			}
		}
		if strings.HasPrefix(base, "python") {
			for _, a := range args {
				if strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "--") && strings.Contains(a.Value, "c") {
					return base + " " + a.Value + " runs a program given as a string"
				}
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

// teeFiles are the files a tee command writes: its arguments that are not
// options.
func teeFiles(c ShellCommand) []ShellWord {
	if len(c.Args) == 0 || !c.Args[0].Literal || path.Base(c.Args[0].Value) != "tee" {
		return nil
	}
	out := []ShellWord{}
	for _, a := range c.Args[1:] {
		if a.Literal && strings.HasPrefix(a.Value, "-") && a.Value != "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

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
