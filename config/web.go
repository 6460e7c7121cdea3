package config

import (
	"net/url"
	"strings"
	"time"
)

// Web configures the web inbox `hitl serve` serves at /.
type Web struct {
	// URL is the address people reach the service at (behind a proxy, or
	// by a name), like https://hitl.example.com: the base of the links
	// (/q/{id}) notifications carry. Empty: the listen address.
	URL string `yaml:"url"`
	// SessionTTL is how long a browser stays signed in (default 12h).
	SessionTTL Duration `yaml:"session_ttl"`
	// OIDC signs people in with the company's identity provider (or
	// Sign in with Slack): oidc.go. Nil: not configured.
	OIDC *OIDC `yaml:"oidc"`
}

// validate checks web.url and web.session_ttl.
func (w Web) validate() error {
	if w.URL != "" {
		u, err := url.Parse(w.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return bad("web.url", w.URL, "want an http or https address like https://hitl.example.com")
		}
	}
	if w.SessionTTL < 0 || (w.SessionTTL > 0 && time.Duration(w.SessionTTL) < time.Minute) {
		return bad("web.session_ttl", time.Duration(w.SessionTTL).String(), "want a duration of a minute or more, like 12h (0 takes the default)")
	}
	if w.OIDC != nil {
		return w.OIDC.validate()
	}
	return nil
}

// BaseURL is the address links to the web inbox start with, without a
// trailing slash: web.url, else http:// and the listen address.
func (c Config) BaseURL() string {
	if c.Web.URL != "" {
		return strings.TrimRight(c.Web.URL, "/")
	}
	return "http://" + c.Listen
}
