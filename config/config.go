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
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"go.yaml.in/yaml/v3"
)

// Config is the whole configuration. YAML keys are snake_case.
type Config struct {
	Listen        string   `yaml:"listen"`
	DB            string   `yaml:"db"`
	Tokens        []Token  `yaml:"tokens"`
	Timeouts      Timeouts `yaml:"timeouts"`
	SweepSchedule string   `yaml:"sweep_schedule"`
	Slack         Slack    `yaml:"slack"`
}

// Token is a bearer token an agent presents; Name identifies the agent in
// the audit log.
type Token struct {
	Name  string `yaml:"name"`
	Token string `yaml:"token"`
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
}

// Enabled reports whether the Slack bot should run.
func (s Slack) Enabled() bool { return s.AppToken != "" && s.BotToken != "" }

// Duration is a time.Duration written as "30m" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
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
			return c, hitl.Errorf(hitl.EINVALID, "config file: %v", err)
		}
		defer f.Close()
		if err := c.decode(f, path); err != nil {
			return c, err
		}
	}
	c.applyEnv(getenv)
	return c, nil
}

func (c *Config) decode(r io.Reader, path string) error {
	b, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return hitl.Errorf(hitl.EINVALID, "config file %s: %v", path, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return hitl.Errorf(hitl.EINVALID, "config file %s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return nil
}

// Environment variables, and the keys they override.
var envKeys = []struct{ env, key string }{
	{"HITL_LISTEN", "listen"},
	{"HITL_DB", "db"},
	{"HITL_TOKENS", "tokens"},
	{"SLACK_APP_TOKEN", "slack.app_token"},
	{"SLACK_BOT_TOKEN", "slack.bot_token"},
	{"HITL_SLACK_CHANNEL", "slack.channel"},
	{"HITL_SLACK_API_URL", "slack.api_url"},
}

func (c *Config) applyEnv(getenv func(string) string) {
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
		}
	}
}

// parseTokens reads HITL_TOKENS: "name:token,name2:token2" (a bare token is
// named "agent").
func parseTokens(s string) []Token {
	var out []Token
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, tok, ok := strings.Cut(part, ":")
		if !ok {
			name, tok = "agent", part
		}
		out = append(out, Token{Name: name, Token: tok})
	}
	return out
}

// HitlTimeouts converts to the domain's Timeouts.
func (c Config) HitlTimeouts() hitl.Timeouts {
	return hitl.Timeouts{
		Blocking: time.Duration(c.Timeouts.Blocking), Approval: time.Duration(c.Timeouts.Approval),
		ErrorRecovery: time.Duration(c.Timeouts.ErrorRecovery), Min: time.Duration(c.Timeouts.Min), Max: time.Duration(c.Timeouts.Max),
	}
}

// TokenMap returns token → agent name, as the HTTP server wants it.
func (c Config) TokenMap() map[string]string {
	m := make(map[string]string, len(c.Tokens))
	for _, t := range c.Tokens {
		m[t.Token] = t.Name
	}
	return m
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
