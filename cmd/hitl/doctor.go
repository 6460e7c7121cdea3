package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/sandbox"
	"github.com/hitlbot/hitl/steer"
)

// hitl doctor checks a machine's wiring, one line per check: hitl on
// PATH, the service reachable with the token, the Claude Code and Codex
// settings files holding hitl's hooks, Claude Code's version, the MCP
// entry. Each line is "ok", "problem" (with the fix) or "--" (nothing to
// check: an agent that is not set up here). It exits 0 when no check
// found a problem, 1 (exitFailure) when one did, 2 on bad flags.

// check is one line of hitl doctor.
type check struct {
	status string // checkOK, checkProblem, checkSkipped
	what   string // the thing checked, like "Claude Code hooks"
	say    string // what was found
	fix    string // for a problem: what to do
}

const (
	checkOK      = "ok"
	checkProblem = "problem"
	checkSkipped = "--"
)

func (c check) String() string {
	s := fmt.Sprintf("%-8s %s: %s", c.status, c.what, c.say)
	if c.fix != "" {
		s += "; fix: " + c.fix
	}
	return s
}

// hookEventsOf are the events hitl's hooks block wires, per agent (README:
// Use with Claude Code, Use with Codex CLI). Codex has no SessionEnd.
var hookEventsOf = map[string][]steer.HookEvent{
	"claude": steer.HookEvents,
	"codex":  slices.DeleteFunc(slices.Clone(steer.HookEvents), func(e steer.HookEvent) bool { return e == steer.HookSessionEnd }),
}

// doctor is what hitl doctor reads: the environment and the directory of
// the project whose settings it checks.
type doctor struct {
	e       *env
	home    string
	dir     string
	path    []string
	timeout time.Duration
}

func cmdDoctor(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	dir := fs.String("dir", ".", "the project whose .claude, .codex and .mcp.json settings are checked")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageError(fs, "hitl doctor takes no arguments: hitl doctor [--dir PROJECT]")
	}
	d := &doctor{e: e, home: e.getenv("HOME"), dir: *dir, path: filepath.SplitList(e.getenv("PATH")), timeout: 10 * time.Second}
	problems := 0
	for _, c := range d.checks(ctx) {
		fmt.Fprintln(e.stdout, c)
		if c.status == checkProblem {
			problems++
		}
	}
	if problems > 0 {
		return &outcome{code: exitFailure, msg: fmt.Sprintf("hitl doctor: %d problem(s); each line above says its fix", problems)}
	}
	return nil
}

// checks runs every check, in the order a newcomer fixes them.
func (d *doctor) checks(ctx context.Context) []check {
	out := []check{d.onPath(), d.service(ctx)}
	out = append(out, d.hooks("claude", "Claude Code hooks", []string{
		filepath.Join(d.home, ".claude", "settings.json"),
		filepath.Join(d.dir, ".claude", "settings.json"),
		filepath.Join(d.dir, ".claude", "settings.local.json"),
	}, "add README's hooks block (Use with Claude Code) to ~/.claude/settings.json or the project's .claude/settings.json"))
	out = append(out, d.claudeVersion(ctx))
	out = append(out, d.hooks("codex", "Codex hooks", []string{
		filepath.Join(d.home, ".codex", "hooks.json"),
		filepath.Join(d.dir, ".codex", "hooks.json"),
	}, "add README's hooks block (Use with Codex CLI) to ~/.codex/hooks.json, then trust it with /hooks in Codex"))
	return append(out, d.mcp(), d.kernel())
}

// kernel says whether this kernel can hold a command to its grant
// (hitl sandbox, policy.enforce: kernel), and at which Landlock ABI.
func (d *doctor) kernel() check {
	c := check{what: "the kernel", status: checkOK}
	abi := d.e.landlockABI()
	if abi == 0 {
		c.status, c.say = checkSkipped, "no Landlock: hitl sandbox refuses here, and with enforce: kernel the hooks ask instead of allowing; the policy's decision is the only layer"
		return c
	}
	c.say = fmt.Sprintf("Landlock ABI %d enforces grants (hitl sandbox; enforce: kernel); not enforced: %s", abi, strings.Join(sandbox.Unenforced(abi)[:1], "; "))
	return c
}

// lookPath finds an executable named name on the env's PATH.
func (d *doctor) lookPath(name string) string {
	for _, dir := range d.path {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func (d *doctor) onPath() check {
	c := check{what: "hitl on PATH"}
	if p := d.lookPath("hitl"); p != "" {
		c.status, c.say = checkOK, p
		return c
	}
	c.status, c.say = checkProblem, "not found; the hooks and MCP entries run hitl by name"
	c.fix = "go install ./cmd/hitl (from the clone) and put $(go env GOPATH)/bin on PATH, or write the full path of your hitl in the hooks"
	return c
}

func (d *doctor) service(ctx context.Context) check {
	cl := newClient(d.e)
	url := cmp.Or(d.e.getenv("HITL_URL"), "http://127.0.0.1:7070")
	c := check{what: "the service", status: checkProblem}
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	h, err := cl.Health(ctx)
	if err != nil {
		c.say = fmt.Sprintf("cannot reach %s (%s)", url, fault.Message(err))
		c.fix = "start it with " + hint("serve") + ", or set HITL_URL to where it runs"
		return c
	}
	p, err := cl.Whoami(ctx)
	switch {
	case fault.Code(err) == fault.EUNAUTHORIZED && d.e.getenv("HITL_TOKEN") == "":
		c.say, c.fix = url+" has tokens and HITL_TOKEN is not set", "export HITL_TOKEN=<your token>"
		return c
	case fault.Code(err) == fault.EUNAUTHORIZED:
		c.say, c.fix = url+" does not know HITL_TOKEN", "set HITL_TOKEN to one of the service's tokens"
		return c
	case err != nil:
		c.say = fmt.Sprintf("%s answers, but who you are could not be read (%s)", url, fault.Message(err))
		return c
	}
	slack := "Slack off: questions are answered from the terminal and the web inbox"
	if h.Slack {
		slack = "Slack on"
	}
	c.status, c.say = checkOK, fmt.Sprintf("%s answers, as %s; %s", url, visible(auth.PersonName(p.ID)), slack)
	return c
}

// hitlCommand matches a hook or MCP command that runs hitl: "hitl …" or a
// path ending in /hitl.
func hitlCommand(cmd, args string) bool {
	return regexp.MustCompile(`(^|/)hitl\s+` + regexp.QuoteMeta(args) + `(\s|$)`).MatchString(strings.TrimSpace(cmd))
}

// settingsHooks is the hooks part of a Claude Code or Codex settings file.
type settingsHooks struct {
	Hooks map[string][]struct {
		Hooks []struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Timeout *float64 `json:"timeout"` // seconds
		} `json:"hooks"`
	} `json:"hooks"`
}

// hooks checks that files (the ones that exist: Claude Code merges them)
// run hitl hook AGENT on every event hitl's block wires.
func (d *doctor) hooks(agent, what string, files []string, fix string) check {
	c := check{what: what}
	wired := map[steer.HookEvent][]string{}
	var found []string
	undecided := "" // a file whose PreToolUse hook leaves tool calls undecided
	cutShort := ""  // a hook the agent stops before hitl stops waiting
	for _, f := range files {
		b, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		found = append(found, d.short(f))
		var s settingsHooks
		if err == nil {
			err = json.Unmarshal(b, &s)
		}
		if err != nil {
			c.status, c.say = checkProblem, fmt.Sprintf("%s cannot be read: %v", d.short(f), err)
			c.fix = "make it valid JSON"
			return c
		}
		for ev, groups := range s.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					if hitlCommand(h.Command, "hook "+agent) {
						wired[steer.HookEvent(ev)] = append(wired[steer.HookEvent(ev)], d.short(f))
						if ev == string(steer.HookPreToolUse) && regexp.MustCompile(`--?decide-tools(=|\s+)(false|0|f|F|FALSE|False)\b`).MatchString(h.Command) {
							undecided = d.short(f)
						}
						asks := ev == string(steer.HookPreToolUse) || ev == string(steer.HookPermissionRequest) // where people are asked, due at --wait
						if why := hookWaitProblem(h.Command, h.Timeout); asks && why != "" && cutShort == "" {
							cutShort = fmt.Sprintf("%s at %s: %s", d.short(f), ev, why)
						}
					}
				}
			}
		}
	}
	if agent == "claude" && len(wired[steer.HookPreToolUse]) > 0 && undecided != "" {
		c.status, c.what = checkProblem, what
		c.say = undecided + " runs hitl hook claude --decide-tools=false at PreToolUse: in acceptEdits, auto and bypassPermissions modes Claude Code sends no PermissionRequest, so hitl is never asked"
		c.fix = "drop --decide-tools=false (docs/claude-code.md's hooks block)"
		return c
	}
	if cutShort != "" {
		c.status, c.say = checkProblem, cutShort
		c.fix = "keep hitl hook's --wait (default " + defaultHookWait.String() + ") below the hook's timeout, and within the service's timeouts.min and timeouts.max (docs/claude-code.md)"
		return c
	}
	want := hookEventsOf[agent]
	var missing []string
	for _, ev := range want {
		if len(wired[ev]) == 0 {
			missing = append(missing, string(ev))
		}
	}
	switch {
	case len(found) == 0 && agent == "codex":
		c.status, c.say = checkSkipped, "no ~/.codex/hooks.json or .codex/hooks.json (Codex is not wired here)"
	case len(found) == 0:
		c.status, c.say, c.fix = checkProblem, "no ~/.claude/settings.json, .claude/settings.json or .claude/settings.local.json", fix
	case len(missing) == len(want):
		c.status, c.say, c.fix = checkProblem, strings.Join(found, ", ")+" run hitl on no event", fix
	case len(missing) > 0:
		c.status = checkProblem
		c.say = fmt.Sprintf("%s run hitl on %d of %d events; missing %s", strings.Join(found, ", "), len(want)-len(missing), len(want), strings.Join(missing, ", "))
		c.fix = fix
	default:
		c.status, c.say = checkOK, fmt.Sprintf("every event (%d) runs hitl hook %s, in %s", len(want), agent, strings.Join(found, ", "))
	}
	return c
}

// claudeVersion runs claude --version when claude is on PATH.
func (d *doctor) claudeVersion(ctx context.Context) check {
	c := check{what: "Claude Code version"}
	p := d.lookPath("claude")
	if p == "" {
		c.status, c.say = checkSkipped, "claude is not on PATH"
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p, "--version")
	cmd.Env = append(os.Environ(), "PATH="+strings.Join(d.path, string(os.PathListSeparator)))
	out, err := cmd.Output()
	v := strings.TrimSpace(string(out))
	switch {
	case err != nil:
		c.status, c.say = checkProblem, fmt.Sprintf("%s --version failed: %v", p, err)
		c.fix = "reinstall Claude Code (npm install -g @anthropic-ai/claude-code@latest)"
	case steer.ClaudeCodeTooOld(v) != "":
		c.status, c.say = checkProblem, steer.ClaudeCodeTooOld(v)
		c.fix = "claude update"
	default:
		c.status, c.say = checkOK, visible(v)+" (hitl needs "+steer.MinClaudeCodeVersion+" or later)"
	}
	return c
}

// mcp looks for an MCP server entry that runs hitl mcp: the project's
// .mcp.json, Claude Code's ~/.claude.json (user scope, and this project's
// local scope), Codex's ~/.codex/config.toml. None is no problem: the
// MCP server is one of three ways in.
func (d *doctor) mcp() check {
	c := check{what: "MCP entry"}
	var where []string
	type servers struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	runsHitl := func(s servers) bool {
		for _, e := range s.MCPServers {
			if hitlCommand(strings.Join(append([]string{e.Command}, e.Args...), " "), "mcp") {
				return true
			}
		}
		return false
	}
	var bad []string
	read := func(f string, v any) bool {
		b, err := os.ReadFile(f)
		if err != nil {
			return false
		}
		if err := json.Unmarshal(b, v); err != nil {
			bad = append(bad, d.short(f))
			return false
		}
		return true
	}
	var project servers
	if f := filepath.Join(d.dir, ".mcp.json"); read(f, &project) && runsHitl(project) {
		where = append(where, d.short(f))
	}
	var user struct {
		servers
		Projects map[string]servers `json:"projects"`
	}
	if f := filepath.Join(d.home, ".claude.json"); read(f, &user) {
		abs, _ := filepath.Abs(d.dir)
		if runsHitl(user.servers) || runsHitl(user.Projects[abs]) {
			where = append(where, d.short(f))
		}
	}
	if f := filepath.Join(d.home, ".codex", "config.toml"); codexRunsHitlMCP(f) {
		where = append(where, d.short(f))
	}
	switch {
	case len(bad) > 0:
		c.status, c.say, c.fix = checkProblem, strings.Join(bad, ", ")+" is not valid JSON", "make it valid JSON"
	case len(where) > 0:
		c.status, c.say = checkOK, "hitl mcp in "+strings.Join(where, ", ")
	default:
		c.status, c.say = checkSkipped, "no MCP entry runs hitl mcp (optional: claude mcp add hitl -- hitl mcp)"
	}
	return c
}

// codexRunsHitlMCP reports whether Codex's config.toml has an
// [mcp_servers.NAME] table whose command runs hitl mcp (a line scan:
// command = "…" and args = [ "mcp" ] within the table).
func codexRunsHitlMCP(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	in, command, args := false, "", ""
	done := func() bool { return in && hitlCommand(command+" "+args, "mcp") }
	quoted := regexp.MustCompile(`"([^"]*)"`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			if done() {
				return true
			}
			in, command, args = strings.HasPrefix(line, "[mcp_servers."), "", ""
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !in {
			continue
		}
		var words []string
		for _, m := range quoted.FindAllStringSubmatch(v, -1) {
			words = append(words, m[1])
		}
		switch strings.TrimSpace(k) {
		case "command":
			command = strings.Join(words, " ")
		case "args":
			args = strings.Join(words, " ")
		}
	}
	return done()
}

// short is file with the home directory written ~.
func (d *doctor) short(file string) string {
	if d.home != "" {
		if rel, err := filepath.Rel(d.home, file); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return file
}

// waitFlag finds hitl hook's --wait in a hook command.
var waitFlag = regexp.MustCompile(`--?wait(?:=|\s+)(\S+)`)

// agentHookTimeout is how long Claude Code and Codex let a command hook
// run when its entry names no timeout (seconds).
const agentHookTimeout = 600

// hookWaitProblem says why a hook entry running cmd, stopped by its
// agent after timeout seconds (nil: the agents' default), cannot wait as
// long as hitl hook's --wait: the agent stops the hook first, and the
// question outlives anyone waiting for it. "" when it can.
func hookWaitProblem(cmd string, timeout *float64) string {
	wait := defaultHookWait
	if m := waitFlag.FindStringSubmatch(cmd); m != nil {
		d, err := time.ParseDuration(strings.Trim(m[1], `"'`))
		if err != nil {
			return fmt.Sprintf("--wait %s is not a duration (like 9m)", m[1])
		}
		wait = d
	}
	limit, named := float64(agentHookTimeout), "the agent's default timeout"
	if timeout != nil {
		limit, named = *timeout, "its timeout"
	}
	if wait.Seconds() >= limit {
		return fmt.Sprintf("hitl hook waits %s for people, but %s is %gs: the agent stops the hook first", wait, named, limit)
	}
	return ""
}
