package main

import (
	"time"

	"github.com/hitlbot/hitl"

	"github.com/hitlbot/hitl/email"
)

// startMailer starts the email edge when email is configured: reminders
// and escalations of blocking questions and approvals go by email too,
// from the store's durable mail outbox.
func (m *Main) startMailer() error {
	if !m.Config.Email.Enabled() {
		return nil
	}
	var inner Database = m.DB
	if d, ok := inner.(*database); ok {
		inner = d.Database
	}
	box, ok := inner.(hitl.MailOutbox)
	if !ok {
		return hitl.Errorf(hitl.EINVALID, "email: the mail outbox is kept in a bbolt database only so far; on PostgreSQL leave email unset")
	}
	send, err := email.SMTP(m.Config.Email.SMTPURL, m.Config.Email.From, time.Minute)
	if err != nil {
		return err
	}
	cfg := email.Config{Send: send, Addresses: m.Config.Email.Addresses, WebURL: m.Config.BaseURL(),
		Answerers: m.Config.Slack.Answerers, Clock: m.Clock, Logger: m.Logger, Every: m.MailEvery}
	if m.Bot != nil {
		cfg.Lookup = m.Bot.EmailOf
	}
	m.mailer = email.New(cfg, m.Service, box)
	m.mailer.Start()
	return nil
}
