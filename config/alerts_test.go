package config_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAlertsAndMetricsConfig(t *testing.T) {
	t.Run("issue 15's keys load from YAML and the environment", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "hitl.yaml")
		require.NoError(t, os.WriteFile(path, []byte("metrics_listen: 10.0.0.5:9090\n"+
			"alerts: {channel: C0ALERTS, timeout_rate: 0.3, min_settled: 5, unanswered_blocking: 90m}\n"), 0o600))
		c, err := config.Load(path, func(string) string { return "" })
		require.NoError(t, err)
		require.NoError(t, c.Validate())
		assert.Equal(t, "10.0.0.5:9090", c.MetricsListen)
		assert.Equal(t, observe.AlertConfig{Channel: "C0ALERTS", TimeoutRate: 0.3, MinSettled: 5, UnansweredBlocking: 90 * time.Minute}, c.HitlAlerts())

		env := map[string]string{"HITL_ALERTS_CHANNEL": "C0OTHER", "HITL_METRICS_LISTEN": "127.0.0.1:9191"}
		c, err = config.Load(path, func(k string) string { return env[k] })
		require.NoError(t, err)
		assert.Equal(t, "C0OTHER", c.Alerts.Channel)
		assert.Equal(t, "127.0.0.1:9191", c.MetricsListen)
	})
	t.Run("unset: the defaults of the questions API", func(t *testing.T) {
		got := config.Default().HitlAlerts().WithDefaults()
		assert.Equal(t, observe.AlertConfig{TimeoutRate: 0.2, MinSettled: 10, UnansweredBlocking: time.Hour, CreationErrors: 1}, got)
	})
	for name, tc := range map[string]struct {
		mutate func(*config.Config)
		want   string
	}{
		"a channel name, not an id":     {func(c *config.Config) { c.Alerts.Channel = "#ops" }, `config alerts.channel = "#ops"`},
		"a rate of 20, not 0.2":         {func(c *config.Config) { c.Alerts.TimeoutRate = 20 }, `config alerts.timeout_rate = "20"`},
		"a negative minimum":            {func(c *config.Config) { c.Alerts.MinSettled = -1 }, `config alerts.min_settled = "-1"`},
		"a negative wait":               {func(c *config.Config) { c.Alerts.UnansweredBlocking = config.Duration(-time.Hour) }, `config alerts.unanswered_blocking`},
		"negative creation errors":      {func(c *config.Config) { c.Alerts.CreationErrors = -2 }, `config alerts.creation_errors = "-2"`},
		"metrics_listen without a port": {func(c *config.Config) { c.MetricsListen = "10.0.0.5" }, `config metrics_listen = "10.0.0.5"`},
	} {
		t.Run(name, func(t *testing.T) {
			c := config.Default()
			tc.mutate(&c)
			err := c.Validate()
			assert.Equal(t, fault.EINVALID, fault.Code(err))
			assert.ErrorContains(t, err, tc.want)
		})
	}
}
