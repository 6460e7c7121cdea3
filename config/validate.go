package config

import (
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/policy"
	"github.com/robfig/cron/v3"
)

// Validate checks every key and names the first bad one with its value.
func (c Config) Validate() error {
	if _, port, err := net.SplitHostPort(c.Listen); err != nil {
		return bad("listen", c.Listen, "want host:port, like 127.0.0.1:7070")
	} else if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return bad("listen", c.Listen, "the port must be a number from 0 to 65535")
	}
	if !Loopback(c.Listen) && len(c.Tokens) == 0 {
		return bad("listen", c.Listen, "refusing to listen beyond loopback without tokens: set tokens (HITL_TOKENS=name:secret) or listen on 127.0.0.1")
	}
	if strings.TrimSpace(c.DB) == "" {
		return bad("db", c.DB, "a database file path (or a postgres:// URL) is required")
	}
	if err := validateTokens(c.Tokens); err != nil {
		return err
	}
	if err := c.Web.validate(); err != nil {
		return err
	}
	if t := c.InteractionThreshold; t != nil && (*t < hitl.MinThreshold || *t > hitl.MaxThreshold) {
		return bad("interaction_threshold", strconv.Itoa(*t), "must be a whole number from 0 to 5 (0: agents never ask; unset: nothing is refused)")
	}
	if err := policy.ValidatePolicy(hitl.Policy{Rules: c.PolicyRules()}); err != nil {
		return fault.Errorf(fault.EINVALID, "config policy: %s", fault.Message(err))
	}
	if err := c.validateReminders(); err != nil {
		return err
	}
	if c.Policy.Enforce != "" && c.Policy.Enforce != hitl.EnforceKernel {
		return bad("policy.enforce", c.Policy.Enforce, "use kernel (run allowed shell lines under hitl sandbox) or leave it out")
	}
	if c.Policy.LearnedTTL < 0 {
		return bad("policy.learned_ttl", time.Duration(c.Policy.LearnedTTL).String(), "must be a positive duration (0 takes the default, 720h)")
	}
	if err := c.Sessions.validate(); err != nil {
		return err
	}
	if c.Retention < 0 {
		return bad("retention", time.Duration(c.Retention).String(), "must be 0 (keep everything) or a positive duration")
	}
	for _, l := range []struct {
		key string
		n   int
	}{
		{"rate_limits.token_per_minute", c.RateLimits.TokenPerMinute}, {"rate_limits.run_per_minute", c.RateLimits.RunPerMinute},
		{"rate_limits.control_per_minute", c.RateLimits.ControlPerMinute}, {"rate_limits.runs_per_minute", c.RateLimits.RunsPerMinute},
		{"rate_limits.policy_per_minute", c.RateLimits.PolicyPerMinute}, {"max_streams", c.MaxStreams},
	} {
		if l.n < 0 {
			return bad(l.key, strconv.Itoa(l.n), "must be 0 (off) or more")
		}
	}
	for key, d := range map[string]Duration{
		"timeouts.blocking": c.Timeouts.Blocking, "timeouts.approval": c.Timeouts.Approval,
		"timeouts.error_recovery": c.Timeouts.ErrorRecovery, "timeouts.min": c.Timeouts.Min, "timeouts.max": c.Timeouts.Max,
	} {
		if d <= 0 {
			return bad(key, time.Duration(d).String(), "must be positive")
		}
	}
	if c.Timeouts.Max < c.Timeouts.Min {
		return bad("timeouts.max", time.Duration(c.Timeouts.Max).String(), "must not be below timeouts.min ("+time.Duration(c.Timeouts.Min).String()+")")
	}
	if _, err := cron.ParseStandard(c.SweepSchedule); err != nil {
		return bad("sweep_schedule", c.SweepSchedule, "not a cron schedule (like @every 1s): "+err.Error())
	}
	if err := c.validateMetrics(); err != nil {
		return err
	}
	if err := c.Webhooks.validate(); err != nil {
		return err
	}
	return c.Slack.validate()
}

// tokenNamePattern is what a token name may be: it becomes api:NAME.
var tokenNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

func validateTokens(tokens []Token) error {
	names, secrets := map[string]bool{}, map[string]bool{}
	for i, t := range tokens {
		key := t.from
		if key == "" {
			key = "tokens[" + strconv.Itoa(i) + "]"
		}
		key += " (" + t.Name + ")"
		if !tokenNamePattern.MatchString(t.Name) {
			return bad(key, t.Name, "a token needs a name of 1-64 letters, digits, '.', '_', '@' or '-'")
		}
		if strings.ContainsAny(t.Token, ":, \t") {
			return bad(key, "", "a secret may not contain ':', ',' or spaces")
		}
		if t.Token == "" {
			return bad(key, "", "the secret is empty")
		}
		if len(t.Token) < 16 {
			return bad(key, "", "the secret must be at least 16 characters (try: openssl rand -hex 24)")
		}
		if names[t.Name] {
			return bad(key, t.Name, "two tokens have this name")
		}
		if secrets[t.Token] {
			return bad(key, "", "the same secret appears twice")
		}
		names[t.Name], secrets[t.Token] = true, true
		for _, s := range t.Scopes {
			if _, err := auth.ParseScope(s); err != nil {
				return bad(key, s, "unknown scope: use ask, answer, control or admin")
			}
		}
		if t.SlackUser != "" && !slackUserPattern.MatchString(t.SlackUser) {
			return bad(key+".slack_user", t.SlackUser, "want a Slack user id (U… or W…)")
		}
	}
	return nil
}

var slackUserPattern = regexp.MustCompile(`^[UW][A-Z0-9]{2,20}$`)

func (s Slack) validate() error {
	if (s.AppToken == "") != (s.BotToken == "") {
		return bad("slack", "", "set both slack.app_token (SLACK_APP_TOKEN) and slack.bot_token (SLACK_BOT_TOKEN), or neither")
	}
	if s.AppToken != "" && !strings.HasPrefix(s.AppToken, "xapp-") {
		return bad("slack.app_token", "(hidden)", "an app-level token starts with xapp-")
	}
	if s.BotToken != "" && !strings.HasPrefix(s.BotToken, "xoxb-") {
		return bad("slack.bot_token", "(hidden)", "a bot token starts with xoxb-")
	}
	if s.APIURL != "" {
		u, err := url.Parse(s.APIURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("slack.api_url", s.APIURL, "want an http(s) URL like https://slack.com/api/")
		}
	}
	for key, ids := range map[string][]string{"slack.answerers": s.Answerers, "slack.admins": s.Admins, "slack.controllers": s.Controllers} {
		for _, id := range ids {
			if !auth.IsSlackID(id) {
				return bad(key, id, "want Slack user ids (U…/W…) or user-group ids (S…)")
			}
		}
	}
	return nil
}

func bad(key, value, why string) error {
	if value == "" {
		return fault.Errorf(fault.EINVALID, "config %s: %s", key, why)
	}
	return fault.Errorf(fault.EINVALID, "config %s = %q: %s", key, value, why)
}
