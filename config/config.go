// Package config loads hitl's configuration: defaults, then an optional YAML
// file, then environment variables, then command-line flags (applied by cmd).
// Validation errors name the bad key and value.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"go.yaml.in/yaml/v3"
)

// Config is the whole configuration. YAML keys are snake_case.
type Config struct {
	Listen        string   `yaml:"listen"`
	DB            string   `yaml:"db"`
	Tokens        []Token  `yaml:"tokens"`
	Timeouts      Timeouts `yaml:"timeouts"`
	SweepSchedule string   `yaml:"sweep_schedule"`
	// Retention is how long settled questions (and events) are kept,
	// counted from when they were settled; 0 keeps everything.
	Retention Duration `yaml:"retention"`
	Slack     Slack    `yaml:"slack"`
	// RateLimits bound question creation (docs/protocol.md#questions), control requests,
	// run reports and policy calls, per principal.
	RateLimits RateLimits `yaml:"rate_limits"`
	// MaxStreams bounds each principal's concurrent SSE streams and long
	// polls (0: no bound).
	MaxStreams int `yaml:"max_streams"`
	// AllowDefaultApprove lets an approval be created with
	// defaultResponse approve, so that it approves itself on timeout.
	AllowDefaultApprove bool `yaml:"allow_default_approve"`
	// InteractionThreshold is the level (0–5; docs/protocol.md#run-state-and-the-interaction-threshold) for runs without
	// their own; unset: questions are never refused.
	InteractionThreshold *int `yaml:"interaction_threshold"`
	// Policy is the approval policy (docs/policies.md).
	Policy PolicyConfig `yaml:"policy"`
	// Reminders are the reminders and escalation of each question type
	// (reminders.go); Email their fallback channel.
	Reminders map[string]ReminderConfig `yaml:"reminders"`
	Email     Email                     `yaml:"email"`
	// Sessions are the idle and end times of coding-agent sessions.
	Sessions Sessions `yaml:"sessions"`
	// Web configures the web inbox (web.go).
	Web Web `yaml:"web"`
	// MetricsListen is an address of its own for /metrics, served
	// without a token (a private scrape network); empty: /metrics is on
	// the API listener, for admins (config/alerts.go).
	MetricsListen string `yaml:"metrics_listen"`
	Alerts        Alerts `yaml:"alerts"`
	// SealKeyFile holds the key sealing sensitive answers (32 random bytes,
	// raw or as 64 hex characters): required with a PostgreSQL db, which
	// replicas share (hitl.CheckSealKey); without it a key is made at start.
	SealKeyFile string `yaml:"seal_key_file"`
	// Webhooks are the webhook endpoints and the callbackUrl policy
	// (webhooks.go).
	Webhooks `yaml:",inline"`
}

// Token is a bearer token: Name identifies its holder (api:NAME in the
// audit log), Scopes what it may do (ask, answer, control, admin; none
// means ask only), SlackUser the Slack user it speaks for (the same person
// for every rule: it may answer what is assigned to them, and never what
// it asked).
type Token struct {
	Name      string   `yaml:"name"`
	Token     string   `yaml:"token"`
	Scopes    []string `yaml:"scopes"`
	SlackUser string   `yaml:"slack_user"`

	// from names where the token came from, for error messages.
	from string
}

// RateLimits are per-minute budgets for creating questions; 0 turns one
// off. Each allows a burst of ten seconds' worth.
type RateLimits struct {
	TokenPerMinute int `yaml:"token_per_minute"`
	RunPerMinute   int `yaml:"run_per_minute"`
	// ControlPerMinute bounds a principal's loop:control REQUESTs,
	// RunsPerMinute its loop:current reports, checkpoints and new runs,
	// PolicyPerMinute its policy calls (approvals, policy, revoke).
	ControlPerMinute int `yaml:"control_per_minute"`
	RunsPerMinute    int `yaml:"runs_per_minute"`
	PolicyPerMinute  int `yaml:"policy_per_minute"`
}

// Timeouts are the default waits and the bounds requested timeouts are
// clamped to.
type Timeouts struct {
	Blocking      Duration `yaml:"blocking"`
	Approval      Duration `yaml:"approval"`
	ErrorRecovery Duration `yaml:"error_recovery"`
	Min           Duration `yaml:"min"`
	Max           Duration `yaml:"max"`
}

// Slack configures the Slack bot. Without both tokens the bot is off.
type Slack struct {
	AppToken string `yaml:"app_token"`
	BotToken string `yaml:"bot_token"`
	Channel  string `yaml:"channel"`
	APIURL   string `yaml:"api_url"`
	// Answerers may answer questions (user ids U…/W… and user-group ids
	// S…). Empty: anyone in the channel may.
	Answerers []string `yaml:"answerers"`
	// Admins may answer any question, assigned or not.
	Admins []string `yaml:"admins"`
	// Controllers may steer runs (pause, resume, cancel, escalate,
	// redirect); empty: whoever may answer.
	Controllers []string `yaml:"controllers"`
	// RunsChannel gets one live message per steerable run.
	RunsChannel string `yaml:"runs_channel"`
	// Models are offered when escalating from Slack (default [opus]).
	Models []string `yaml:"models"`
}

// Enabled reports whether the Slack bot should run.
func (s Slack) Enabled() bool { return s.AppToken != "" && s.BotToken != "" }

// Duration is a time.Duration written as "30m" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string ("0" is zero).
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Value == "0" {
		*d = 0
		return nil
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration (like 30m or 1h30m)", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// Default returns the configuration used when nothing is set.
func Default() Config {
	t := hitl.DefaultTimeouts()
	return Config{
		Listen:        "127.0.0.1:7070",
		DB:            "./hitl.db",
		SweepSchedule: "@every 1s",
		Retention:     Duration(720 * time.Hour),
		Policy:        PolicyConfig{LearnedTTL: Duration(hitl.DefaultLearnedTTL)},
		RateLimits: RateLimits{TokenPerMinute: 120, RunPerMinute: 30,
			ControlPerMinute: 60, RunsPerMinute: 600, PolicyPerMinute: 600},
		MaxStreams: DefaultMaxStreams,
		Sessions:   defaultSessions(),
		Timeouts: Timeouts{
			Blocking: Duration(t.Blocking), Approval: Duration(t.Approval), ErrorRecovery: Duration(t.ErrorRecovery),
			Min: Duration(t.Min), Max: Duration(t.Max),
		},
	}
}

// Load returns the defaults overlaid with the YAML file at path (if path is
// not empty) and then with the environment (getenv, usually os.Getenv). It
// does not validate: call Validate after applying flags.
func Load(path string, getenv func(string) string) (Config, error) {
	c := Default()
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return c, fault.Errorf(fault.EINVALID, "config file: %v", err)
		}
		defer f.Close()
		if err := c.decode(f, path); err != nil {
			return c, err
		}
	}
	return c, c.applyEnv(getenv)
}

func (c *Config) decode(r io.Reader, path string) error {
	b, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return fault.Errorf(fault.EINVALID, "config file %s: %v", path, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return fault.Errorf(fault.EINVALID, "config file %s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return nil
}

// Environment variables, and the keys they override.
var envKeys = []struct{ env, key string }{
	{"HITL_LISTEN", "listen"},
	{"HITL_DB", "db"},
	{"HITL_SEAL_KEY_FILE", "seal_key_file"},
	{"HITL_TOKENS", "tokens"},
	{"SLACK_APP_TOKEN", "slack.app_token"},
	{"SLACK_BOT_TOKEN", "slack.bot_token"},
	{"HITL_SLACK_CHANNEL", "slack.channel"},
	{"HITL_SLACK_API_URL", "slack.api_url"},
	{"HITL_RETENTION", "retention"},
	{"HITL_POLICY_LEARNED_TTL", "policy.learned_ttl"},
	{"HITL_INTERACTION_THRESHOLD", "interaction_threshold"},
	{"HITL_SLACK_RUNS_CHANNEL", "slack.runs_channel"},
	{"HITL_RATE_TOKEN_PER_MINUTE", "rate_limits.token_per_minute"},
	{"HITL_RATE_RUN_PER_MINUTE", "rate_limits.run_per_minute"},
	{"HITL_RATE_CONTROL_PER_MINUTE", "rate_limits.control_per_minute"},
	{"HITL_RATE_RUNS_PER_MINUTE", "rate_limits.runs_per_minute"},
	{"HITL_RATE_POLICY_PER_MINUTE", "rate_limits.policy_per_minute"},
	{"HITL_MAX_STREAMS", "max_streams"},
	{"HITL_WEB_URL", "web.url"},
	{"HITL_METRICS_LISTEN", "metrics_listen"},
	{"HITL_ALERTS_CHANNEL", "alerts.channel"},
}

func (c *Config) applyEnv(getenv func(string) string) error {
	for _, e := range envKeys {
		v := strings.TrimSpace(getenv(e.env))
		if v == "" {
			continue
		}
		switch e.key {
		case "listen":
			c.Listen = v
		case "db":
			c.DB = v
		case "seal_key_file":
			c.SealKeyFile = v
		case "tokens":
			c.Tokens = parseTokens(v)
		case "slack.app_token":
			c.Slack.AppToken = v
		case "slack.bot_token":
			c.Slack.BotToken = v
		case "slack.channel":
			c.Slack.Channel = v
		case "slack.api_url":
			c.Slack.APIURL = v
		case "interaction_threshold":
			n, err := strconv.Atoi(v)
			if err != nil {
				return bad("interaction_threshold (HITL_INTERACTION_THRESHOLD)", v, "want a whole number from 0 to 5")
			}
			c.InteractionThreshold = &n
		case "slack.runs_channel":
			c.Slack.RunsChannel = v
		case "web.url":
			c.Web.URL = v
		case "metrics_listen":
			c.MetricsListen = v
		case "alerts.channel":
			c.Alerts.Channel = v
		case "retention":
			d, err := time.ParseDuration(v)
			if err != nil {
				return bad("retention (HITL_RETENTION)", v, "want a duration like 720h (0 keeps everything)")
			}
			c.Retention = Duration(d)
		case "policy.learned_ttl":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return bad("policy.learned_ttl (HITL_POLICY_LEARNED_TTL)", v, "want a positive duration like 720h")
			}
			c.Policy.LearnedTTL = Duration(d)
		case "rate_limits.token_per_minute", "rate_limits.run_per_minute", "rate_limits.control_per_minute",
			"rate_limits.runs_per_minute", "rate_limits.policy_per_minute", "max_streams":
			n, err := strconv.Atoi(v)
			if err != nil {
				return bad(e.key+" ("+e.env+")", v, "want a whole number (0 turns the limit off)")
			}
			*map[string]*int{
				"rate_limits.token_per_minute": &c.RateLimits.TokenPerMinute, "rate_limits.run_per_minute": &c.RateLimits.RunPerMinute,
				"rate_limits.control_per_minute": &c.RateLimits.ControlPerMinute, "rate_limits.runs_per_minute": &c.RateLimits.RunsPerMinute,
				"rate_limits.policy_per_minute": &c.RateLimits.PolicyPerMinute, "max_streams": &c.MaxStreams,
			}[e.key] = n
		}
	}
	return nil
}

// parseTokens reads HITL_TOKENS: "name:secret[:scope+scope…],…", e.g.
// "ci:s3cret…:ask,alice:…:answer+control" (a bare secret is named "agent").
// Whitespace around parts is trimmed; scopes are checked by Validate.
func parseTokens(s string) []Token {
	var out []Token
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		fields := strings.Split(part, ":")
		for j := range fields {
			fields[j] = strings.TrimSpace(fields[j])
		}
		t := Token{Name: "agent", Token: fields[0], from: fmt.Sprintf("HITL_TOKENS entry %d", i+1)}
		if len(fields) > 1 {
			t.Name, t.Token = fields[0], fields[1]
		}
		if len(fields) > 2 {
			for _, sc := range strings.Split(fields[2], "+") {
				t.Scopes = append(t.Scopes, strings.TrimSpace(sc))
			}
		}
		if len(fields) > 3 {
			t.Token = strings.Join(fields[1:], ":") // refused by Validate: a secret has no ':'
			t.Scopes = nil
		}
		out = append(out, t)
	}
	return out
}

// Principal is the principal the token identifies (call after Validate).
func (t Token) Principal() auth.Principal {
	var scopes []auth.Scope
	for _, s := range t.Scopes {
		if sc, err := auth.ParseScope(s); err == nil {
			scopes = append(scopes, sc)
		}
	}
	return auth.TokenPrincipal(t.Name, scopes, t.SlackUser)
}

// Access is the root's rules as configured: who answers and administers
// in Slack, and whether approvals may default to approve.
func (c Config) Access() access.Access {
	return access.Access{Answerers: c.Slack.Answerers, Admins: c.Slack.Admins, Controllers: c.Slack.Controllers,
		AllowDefaultApprove: c.AllowDefaultApprove}
}

// HitlTimeouts converts to the domain's Timeouts.
func (c Config) HitlTimeouts() hitl.Timeouts {
	return hitl.Timeouts{
		Blocking: time.Duration(c.Timeouts.Blocking), Approval: time.Duration(c.Timeouts.Approval),
		ErrorRecovery: time.Duration(c.Timeouts.ErrorRecovery), Min: time.Duration(c.Timeouts.Min), Max: time.Duration(c.Timeouts.Max),
	}
}

// Loopback reports whether addr only listens on a loopback interface.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// DefaultMaxStreams is config's default bound on one principal's
// concurrent streams.
const DefaultMaxStreams = 32
