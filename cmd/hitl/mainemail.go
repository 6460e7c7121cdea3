package main

import (
	"time"

	"github.com/hitlbot/hitl/email"
)

// startMailer starts the email edge when email is configured: reminders
// and escalations of blocking questions and approvals go by email too,
// from the database's durable mail outbox (on PostgreSQL shared by the
// replicas, each of which runs a mailer: each mail is claimed by one).
func (m *Main) startMailer() error {
	if !m.Config.Email.Enabled() {
		return nil
	}
	send, err := email.SMTP(m.Config.Email.SMTPURL, m.Config.Email.From, time.Minute)
	if err != nil {
		return err
	}
	cfg := email.Config{Send: send, Addresses: m.Config.Email.Addresses, WebURL: m.Config.BaseURL(),
		Answerers: m.Config.Slack.Answerers, Clock: m.Clock, Logger: m.Logger, Every: m.MailEvery}
	if m.Bot != nil {
		cfg.Lookup, cfg.Directory = m.Bot.EmailOf, m.Bot.Directory()
	}
	m.mailer = email.New(cfg, emailServiceOf(m.Service), m.DB)
	m.mailer.Start()
	return nil
}
