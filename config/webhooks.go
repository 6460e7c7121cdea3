package config

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/webhook"
)

// Webhook is a configured webhook endpoint (webhooks: [{name, url,
// secret_file, events, runs}]): the events it gets, for the runs whose id
// matches runs (a glob; empty: every run), signed with the secrets in
// secret_file (one "whsec_…" secret, or two during a rotation).
type Webhook struct {
	Name       string   `yaml:"name"`
	URL        string   `yaml:"url"`
	SecretFile string   `yaml:"secret_file"`
	Events     []string `yaml:"events"`
	Runs       string   `yaml:"runs"`
}

// Webhooks is the webhook part of the config: endpoints, and where a
// question's callbackUrl may point (docs/webhooks.md).
type Webhooks struct {
	Endpoints    []Webhook `yaml:"webhooks"`
	AllowedHosts []string  `yaml:"webhooks_allowed_hosts"`
	AllowHTTP    bool      `yaml:"webhooks_allow_http"`
	AllowPrivate bool      `yaml:"webhooks_allow_private"`
	// CallbackSecretFile signs the deliveries to callbackUrls; required
	// with webhooks_allowed_hosts.
	CallbackSecretFile string `yaml:"webhooks_callback_secret_file"`
}

var webhookNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// validate checks the webhook settings (the secret files are read when
// the service starts).
func (w Webhooks) validate() error {
	names := map[string]bool{}
	for i, e := range w.Endpoints {
		key := "webhooks[" + strconv.Itoa(i) + "]"
		if !webhookNamePattern.MatchString(e.Name) {
			return bad(key+".name", e.Name, "want 1-64 letters, digits, '.', '_' or '-'")
		}
		if names[e.Name] {
			return bad(key+".name", e.Name, "two endpoints have this name")
		}
		names[e.Name] = true
		if u, err := url.Parse(e.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return bad(key+".url", e.URL, "want an http(s) URL, like https://ci.example.com/hitl")
		}
		if e.SecretFile == "" {
			return bad(key+".secret_file", "", "a file holding the endpoint's whsec_ secret is required")
		}
		if len(e.Events) == 0 {
			return bad(key+".events", "", "list the events it gets, like [question.answered, run.done]")
		}
		for _, ev := range e.Events {
			if !slices.Contains(hitl.WebhookEvents, hitl.WebhookEvent(ev)) {
				return bad(key+".events", ev, "not a webhook event: question.answered, question.timed_out, question.cancelled, question.reminded, question.escalated, run.paused, run.resumed, run.cancelled, run.done or run.aborted")
			}
		}
		if _, err := path.Match(e.Runs, ""); err != nil {
			return bad(key+".runs", e.Runs, "not a glob of run ids, like ci-*")
		}
	}
	if len(w.AllowedHosts) > 0 && w.CallbackSecretFile == "" {
		return bad("webhooks_callback_secret_file", "", "required with webhooks_allowed_hosts: it signs the deliveries to callbackUrls")
	}
	return nil
}

// HitlWebhooks converts to the domain's routes and callback policy.
func (c Config) HitlWebhooks() (*hitl.WebhookRoutes, webhook.CallbackPolicy) {
	routes := &hitl.WebhookRoutes{}
	for _, e := range c.Webhooks.Endpoints {
		ep := hitl.WebhookRoute{Name: e.Name, URL: e.URL, Runs: e.Runs}
		for _, ev := range e.Events {
			ep.Events = append(ep.Events, hitl.WebhookEvent(ev))
		}
		routes.Endpoints = append(routes.Endpoints, ep)
	}
	return routes, webhook.CallbackPolicy{AllowedHosts: c.Webhooks.AllowedHosts, AllowHTTP: c.Webhooks.AllowHTTP, AllowPrivate: c.Webhooks.AllowPrivate}
}
