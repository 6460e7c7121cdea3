package policy

import (
	"path"
	"strings"
)

// Paths are normalised before any rule sees them: cleaned lexically (.,
// .., //), ~ expanded with the agent's home where the edge knows it
// (Operation.Home). A path under a home the policy does not know (~ with
// no home, ~user) is never allowed by a rule, yet still meets every rule
// that denies or adds approvers for home directories: it is matched as
// /home/~/…, /Users/~/… and /root/… (~user as /home/user/…). /dev/tcp/…
// and /dev/udp/… are the network, not files.

// filePath is a path as the rules see it.
type filePath struct {
	// value is the cleaned path, with ~ expanded when the home is known.
	value string
	// homeUnknown: it is under a home directory the policy does not know;
	// candidates are where that home could be.
	homeUnknown bool
	candidates  []string
	// network: bash opens a connection (/dev/tcp/host/port).
	network bool
	// unplaceable says why the policy cannot place the path (an alias
	// of /proc, the directory stack, a relative path after cd): it is
	// never allowed, yet still meets the friction rules of its
	// candidates.
	unplaceable string
}

// normalisePath reads p (tilde: it starts with an unquoted ~ the shell
// expands) for an agent whose home is home ("" when unknown).
func normalisePath(p string, tilde bool, home string) filePath {
	if tilde && strings.HasPrefix(p, "~") {
		user, rest, _ := strings.Cut(p[1:], "/")
		rest = "/" + rest
		if dirStack(user) {
			return filePath{value: cleanPath(p), unplaceable: "~" + user + " is bash's directory stack, not a home directory"}
		}
		if user == "" && home != "" && path.IsAbs(home) {
			return finishPath(cleanPath(home + rest))
		}
		fp := filePath{value: cleanPath("~" + user + rest), homeUnknown: true}
		if user == "" {
			fp.candidates = []string{cleanPath("/home/~" + rest), cleanPath("/Users/~" + rest), cleanPath("/root" + rest), fp.value}
		} else {
			fp.candidates = []string{cleanPath("/home/" + user + rest), cleanPath("/Users/" + user + rest), fp.value}
			if user == "root" {
				fp.candidates = append(fp.candidates, cleanPath("/root"+rest))
			}
		}
		return fp
	}
	return finishPath(cleanPath(p))
}

func finishPath(p string) filePath {
	return filePath{value: p, network: strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/")}
}

// dirStack reports whether ~user is one of bash's directory-stack tildes
// (~+ ~- ~N ~+N ~-N), not a user's home.
func dirStack(user string) bool {
	u := strings.TrimLeft(user, "+-")
	if len(user)-len(u) > 1 {
		return false
	}
	for _, c := range u {
		if c < '0' || c > '9' {
			return false
		}
	}
	return user != ""
}

// cleanPath cleans p lexically: /tmp/../etc/x is /etc/x, //x is /x. An
// empty path stays empty.
func cleanPath(p string) string {
	if p == "" {
		return ""
	}
	return path.Clean(p)
}

// terminalFiles are the terminal's own files: no files to decide.
var terminalFiles = []string{"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/fd/1", "/dev/fd/2", "/dev/fd/0"}
