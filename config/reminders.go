package config

import (
	"net/mail"
	"net/url"
	"slices"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// ReminderConfig is one question type's reminders and escalation:
// `every: [10m, 30m]` (after the question was asked; one reminder at each),
// `escalate_after: 45m` with `escalate_to: [U…, S…]` (added as answerers)
// and `escalation_channel: C…` (told).
type ReminderConfig struct {
	Every             []Duration `yaml:"every"`
	EscalateAfter     Duration   `yaml:"escalate_after"`
	EscalateTo        []string   `yaml:"escalate_to"`
	EscalationChannel string     `yaml:"escalation_channel"`
}

func (r ReminderConfig) policy() hitl.ReminderPolicy {
	return reminderPolicy(r.Every, r.EscalateAfter, r.EscalateTo, r.EscalationChannel)
}

func reminderPolicy(every []Duration, after Duration, to []string, channel string) hitl.ReminderPolicy {
	p := hitl.ReminderPolicy{EscalateAfter: hitl.Duration(after), EscalateTo: slices.Clone(to), EscalationChannel: channel}
	for _, d := range every {
		p.Every = append(p.Every, hitl.Duration(d))
	}
	return p
}

// HitlReminders converts `reminders:` to the domain's, by question type.
func (c Config) HitlReminders() hitl.ReminderPolicies {
	out := hitl.ReminderPolicies{}
	for typ, r := range c.Reminders {
		out[hitl.QuestionType(typ)] = r.policy()
	}
	return out
}

func (c Config) validateReminders() error {
	for typ, r := range c.Reminders {
		if !slices.Contains(hitl.QuestionTypes, hitl.QuestionType(typ)) {
			return bad("reminders", typ, "key by question type: blocking, non_blocking, approval or error_recovery")
		}
		if err := r.policy().Validate("reminders." + typ); err != nil {
			return fault.Errorf(fault.EINVALID, "config %s", fault.Message(err))
		}
	}
	return c.validateEmail()
}

// Email is the fallback channel (docs/operations.md#reminders-escalation-and-reassignment): reminders and escalations of
// blocking questions and approvals also go by email, through SMTPURL
// (smtp://host:port for STARTTLS when the server offers it, smtps:// for
// TLS from the start; user:password@ for auth), from From, to the address
// Addresses gives a Slack user (which beats their Slack profile's).
type Email struct {
	SMTPURL   string            `yaml:"smtp_url"`
	From      string            `yaml:"from"`
	Addresses map[string]string `yaml:"addresses"`
}

// Enabled reports whether email is configured.
func (e Email) Enabled() bool { return e.SMTPURL != "" }

func (c Config) validateEmail() error {
	e := c.Email
	if !e.Enabled() {
		if len(e.Addresses) > 0 || e.From != "" {
			return bad("email.smtp_url", "", "email.from and email.addresses need an SMTP server (smtp://host:port)")
		}
		return nil
	}
	u, err := url.Parse(e.SMTPURL)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return bad("email.smtp_url", redactURL(e.SMTPURL), "want smtp://host:port or smtps://host:port (user:password@ for auth)")
	}
	if _, err := mail.ParseAddress(e.From); err != nil {
		return bad("email.from", e.From, "want an email address, like hitl@example.com")
	}
	for user, addr := range e.Addresses {
		if !auth.IsSlackID(user) {
			return bad("email.addresses", user, "key by Slack user id (U…)")
		}
		if _, err := mail.ParseAddress(addr); err != nil {
			return bad("email.addresses."+user, addr, "want an email address")
		}
	}
	return nil
}

// redactURL hides a URL's password in messages.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
