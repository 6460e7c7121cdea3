package config

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/hitlbot/hitl/observe"
)

// Alerts configures the alerts (docs/operations.md#metrics-stats-and-alerts; alerts: {channel: C…,
// timeout_rate: 0.2, min_settled: 10, unanswered_blocking: 1h}). Zero
// values take the defaults; without a channel alerts still show in
// /metrics and hitl stats, and are not posted.
type Alerts struct {
	Channel            string   `yaml:"channel"`
	TimeoutRate        float64  `yaml:"timeout_rate"`
	MinSettled         int      `yaml:"min_settled"`
	UnansweredBlocking Duration `yaml:"unanswered_blocking"`
	// CreationErrors is how many failed question creations in an hour
	// start creation_errors (default 1).
	CreationErrors int `yaml:"creation_errors"`
}

// HitlAlerts converts to the domain's AlertConfig.
func (c Config) HitlAlerts() observe.AlertConfig {
	a := c.Alerts
	return observe.AlertConfig{Channel: a.Channel, TimeoutRate: a.TimeoutRate, MinSettled: a.MinSettled,
		UnansweredBlocking: time.Duration(a.UnansweredBlocking), CreationErrors: a.CreationErrors}
}

// validateMetrics checks alerts and metrics_listen.
func (c Config) validateMetrics() error {
	a := c.Alerts
	if a.Channel != "" && !channelPattern(a.Channel) {
		return bad("alerts.channel", a.Channel, "want a Slack channel id, like C0123456789")
	}
	if a.TimeoutRate < 0 || a.TimeoutRate >= 1 {
		return bad("alerts.timeout_rate", strconv.FormatFloat(a.TimeoutRate, 'g', -1, 64), "want a share between 0 and 1, like 0.2 (0 takes the default)")
	}
	if a.MinSettled < 0 {
		return bad("alerts.min_settled", strconv.Itoa(a.MinSettled), "must be 0 (the default, 10) or more")
	}
	if a.UnansweredBlocking < 0 {
		return bad("alerts.unanswered_blocking", time.Duration(a.UnansweredBlocking).String(), "must be a positive duration (0 takes the default, 1h)")
	}
	if a.CreationErrors < 0 {
		return bad("alerts.creation_errors", strconv.Itoa(a.CreationErrors), "must be 0 (the default, 1) or more")
	}
	if c.MetricsListen != "" {
		if _, port, err := net.SplitHostPort(c.MetricsListen); err != nil {
			return bad("metrics_listen", c.MetricsListen, "want host:port, like 10.0.0.5:9090")
		} else if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
			return bad("metrics_listen", c.MetricsListen, "the port must be a number from 0 to 65535")
		}
	}
	return nil
}

// channelPattern reports whether id looks like a Slack conversation id.
func channelPattern(id string) bool {
	if len(id) < 2 || !strings.ContainsRune("CGD", rune(id[0])) {
		return false
	}
	for _, r := range id[1:] {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}
