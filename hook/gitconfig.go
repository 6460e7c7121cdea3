package hook

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/hitlbot/hitl/policy"
)

// gitConfigRuns lists what git would run beyond a line's words in dir, as
// the agent's machine has it: every configuration entry git reads there
// (the repository's, the user's, the system's, what they include and what
// GIT_CONFIG_* adds) for which policy.GitConfigRuns holds, as "KEY=VALUE
// (ORIGIN)", and the policy.GitEnvRuns variables set. A configuration git
// cannot read (a directory that is not there, a repository git refuses)
// is said so: the line is then not understood either. Reading the
// configuration runs nothing it names.
func gitConfigRuns(dir string) []string {
	var out []string
	for _, k := range policy.GitEnvRuns {
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v+" (environment)")
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return out // nothing runs there
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "config", "--list", "--show-origin", "-z")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if errors.Is(err, exec.ErrNotFound) {
		return out // no git here: the line's git does not run either
	}
	if err != nil {
		return append(out, "git config=cannot be read in "+dir+" ("+strings.TrimSpace(cut(stderr.String(), 200))+")")
	}
	// -z --show-origin: ORIGIN NUL KEY [NEWLINE VALUE] NUL, repeated
	fields := strings.Split(string(b), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		origin, entry := fields[i], fields[i+1]
		key, value, _ := strings.Cut(entry, "\n")
		if policy.GitConfigRuns(key, value) {
			out = append(out, key+"="+cut(value, 200)+" ("+origin+")")
		}
	}
	return out
}
