package main

import (
	"context"
	"os"
	"strconv"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/webhook"
)

// webhookConfig reads the webhook secrets (from their files: never
// logged, never shown) into the worker's config.
func (m *Main) webhookConfig() (webhook.Config, error) {
	_, policy := m.Config.HitlWebhooks()
	cfg := webhook.Config{Callbacks: policy, Clock: m.Clock, Logger: m.Logger, Changed: m.Service.Log.Changed}
	for i, e := range m.Config.Webhooks.Endpoints {
		secrets, err := readSecrets("webhooks["+strconv.Itoa(i)+"].secret_file", e.SecretFile)
		if err != nil {
			return cfg, err
		}
		cfg.Endpoints = append(cfg.Endpoints, webhook.Endpoint{Name: e.Name, URL: e.URL, Secrets: secrets})
	}
	if f := m.Config.Webhooks.CallbackSecretFile; f != "" {
		secrets, err := readSecrets("webhooks_callback_secret_file", f)
		if err != nil {
			return cfg, err
		}
		cfg.CallbackSecrets = secrets
	}
	return cfg, nil
}

// readSecrets reads a secret file; its errors name the setting and the
// file, never what it holds.
func readSecrets(key, path string) ([]webhook.Secret, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fault.Errorf(fault.EINVALID, "config %s: cannot read %s: %v", key, path, err)
	}
	secrets, err := webhook.ParseSecrets(string(b))
	if err != nil {
		return nil, fault.Errorf(fault.EINVALID, "config %s (%s): %s", key, path, fault.Message(err))
	}
	return secrets, nil
}

// startWebhooks starts the webhook worker when webhooks are configured
// (endpoints, or hosts callbackUrls may name): it sends the deliveries
// of the database's outbox (on PostgreSQL shared by the replicas, each
// of which runs a worker: each delivery is claimed by one).
func (m *Main) startWebhooks(cfg webhook.Config) {
	if len(m.Config.Webhooks.Endpoints) == 0 && len(m.Config.Webhooks.AllowedHosts) == 0 {
		return
	}
	if m.WebhookTuning != nil {
		m.WebhookTuning(&cfg)
	}
	cfg.Failed = func(d hitl.WebhookDelivery) { m.obs.metrics.WebhookFailed(d.Target()) }
	cfg.Failing = func(ctx context.Context, d hitl.WebhookDelivery) error {
		return m.Service.Audit.WebhookFailed(context.WithoutCancel(ctx), d)
	}
	m.webhooks = webhook.New(cfg, m.DB)
	m.Service.Webhooks.SetWebhookPinger(m.webhooks.Ping)
	m.webhooks.Start()
}

// pruneWebhooks deletes the deliveries settled longer ago than the
// retention (none when it is 0: keep everything).
func (m *Main) pruneWebhooks(ctx context.Context) (int, error) {
	keep := time.Duration(m.Config.Retention)
	if keep <= 0 {
		return 0, nil
	}
	return m.DB.PruneWebhooks(ctx, m.Clock.Now().Add(-keep), 1000)
}
