package email

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/hitlbot/hitl/fault"
	mail "github.com/wneessen/go-mail"
)

// Sender sends one message to one address.
type Sender func(ctx context.Context, to string, m Message) error

// SMTP returns a Sender through the server at smtpURL, from from:
// smtp://host:port uses STARTTLS when the server offers it (port 587 by
// default), smtps://host:port TLS from the start (465); user:password@
// authenticates (the mechanism the server offers). Each send dials, sends
// and quits, within timeout; it returns when ctx is done.
func SMTP(smtpURL, from string, timeout time.Duration) (Sender, error) {
	u, err := url.Parse(smtpURL)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return nil, fault.Errorf(fault.EINVALID, "email.smtp_url: want smtp://host:port or smtps://host:port")
	}
	opts := []mail.Option{mail.WithTimeout(timeout)}
	port := 587
	if u.Scheme == "smtps" {
		port = 465
		opts = append(opts, mail.WithSSL())
	} else {
		opts = append(opts, mail.WithTLSPolicy(mail.TLSOpportunistic))
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fault.Errorf(fault.EINVALID, "email.smtp_url: bad port %q", p)
		}
	}
	opts = append(opts, mail.WithPort(port))
	if user := u.User.Username(); user != "" {
		pass, _ := u.User.Password()
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover), mail.WithUsername(user), mail.WithPassword(pass))
	}
	host := u.Hostname()
	return func(ctx context.Context, to string, m Message) error {
		msg := mail.NewMsg()
		if err := msg.From(from); err != nil {
			return fault.Errorf(fault.EINVALID, "email.from: %v", err)
		}
		if err := msg.To(to); err != nil {
			return fault.Errorf(fault.EINVALID, "address %q: %v", to, err)
		}
		msg.Subject(m.Subject)
		msg.SetBodyString(mail.TypeTextPlain, m.Body)
		c, err := mail.NewClient(host, opts...)
		if err != nil {
			return err
		}
		// go-mail heeds ctx while dialling only; after that the exchange
		// is bounded by timeout (the connection's deadline). So that a
		// cancelled send (the mailer closing) returns at once, it is
		// left to finish or time out by itself.
		done := make(chan error, 1)
		go func() { done <- c.DialAndSendWithContext(ctx, msg) }()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}, nil
}
