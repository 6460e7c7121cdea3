package config

import (
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/robfig/cron/v3"
)

var slackIDPattern = regexp.MustCompile(`^[UWS][A-Z0-9]{2,20}$`)

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
		return bad("db", c.DB, "a database file path is required")
	}
	seen := map[string]bool{}
	for i, t := range c.Tokens {
		key := "tokens[" + strconv.Itoa(i) + "]"
		if strings.TrimSpace(t.Name) == "" {
			return bad(key+".name", t.Name, "every token needs a name")
		}
		if len(t.Token) < 16 {
			return bad(key+".token", "(hidden)", "a token must be at least 16 characters")
		}
		if seen[t.Token] {
			return bad(key+".token", "(hidden)", "the same token appears twice")
		}
		seen[t.Token] = true
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
	return c.Slack.validate()
}

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
	for key, ids := range map[string][]string{"slack.answerers": s.Answerers, "slack.admins": s.Admins} {
		for _, id := range ids {
			if !slackIDPattern.MatchString(id) {
				return bad(key, id, "want Slack user ids (U…/W…) or user-group ids (S…)")
			}
		}
	}
	return nil
}

func bad(key, value, why string) error {
	if value == "" {
		return hitl.Errorf(hitl.EINVALID, "config %s: %s", key, why)
	}
	return hitl.Errorf(hitl.EINVALID, "config %s = %q: %s", key, value, why)
}
