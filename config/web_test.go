package config_test

import (
	"testing"
	"time"

	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWebConfig(t *testing.T) {
	t.Run("web.url and session_ttl load from YAML and HITL_WEB_URL overrides", func(t *testing.T) {
		p := writeFile(t, "web:\n  url: https://hitl.example.com/\n  session_ttl: 2h\n")
		c, err := config.Load(p, env(nil))
		require.NoError(t, err)
		require.NoError(t, c.Validate())
		assert.Equal(t, "https://hitl.example.com", c.BaseURL())
		assert.Equal(t, config.Duration(2*time.Hour), c.Web.SessionTTL)
		c, err = config.Load(p, env(map[string]string{"HITL_WEB_URL": "http://box:7070"}))
		require.NoError(t, err)
		assert.Equal(t, "http://box:7070", c.BaseURL())
	})
	t.Run("without web.url, links use the listen address", func(t *testing.T) {
		assert.Equal(t, "http://127.0.0.1:7070", config.Default().BaseURL())
	})
	for name, tc := range map[string]struct {
		mutate func(*config.Config)
		want   string
	}{
		"a web.url that is not http":   {func(c *config.Config) { c.Web.URL = "ftp://x" }, `config web.url = "ftp://x"`},
		"a web.url without a host":     {func(c *config.Config) { c.Web.URL = "https://" }, `config web.url`},
		"a web.url with a query":       {func(c *config.Config) { c.Web.URL = "https://x/?a=1" }, `config web.url`},
		"a session_ttl under a minute": {func(c *config.Config) { c.Web.SessionTTL = config.Duration(time.Second) }, `config web.session_ttl`},
		"a negative session_ttl":       {func(c *config.Config) { c.Web.SessionTTL = -1 }, `config web.session_ttl`},
	} {
		t.Run(name+" is refused", func(t *testing.T) {
			c := config.Default()
			tc.mutate(&c)
			err := c.Validate()
			assert.Equal(t, fault.EINVALID, fault.Code(err))
			assert.ErrorContains(t, err, tc.want)
		})
	}
}
