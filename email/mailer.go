// Package email is hitl's email edge, the fallback channel (docs/operations.md#reminders-escalation-and-reassignment): the
// reminders and escalations of blocking questions and approvals also go by
// email. Like the Slack bot, it reads the durable event log into a durable
// outbox (hitl.MailOutbox, the cursor moved in the same commit), so no
// event is mailed twice, and sends from the outbox, retrying failures with
// backoff: the service never waits on the mail server.
package email

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/runhandle"
)

// Service is what the mailer reads: the event log and the questions.
type Service struct {
	Log interface {
		Events(ctx context.Context, after uint64, limit int) ([]*hitl.Event, uint64, error)
		Changed() <-chan struct{}
	}
	Questions interface {
		Question(ctx context.Context, id string) (*hitl.Question, error)
	}
	// Runs names a question's run by its handle (nil: by its id).
	Runs runhandle.Prefixer
}

// Config configures a Mailer.
type Config struct {
	Send Sender
	// Addresses maps Slack users to addresses; it beats Lookup.
	Addresses map[string]string
	// Lookup finds a Slack user's address (the Slack profile's email,
	// users:read.email); nil: only Addresses.
	Lookup func(ctx context.Context, user string) (string, error)
	// WebURL is where people open a question (web.url).
	WebURL string
	// Answerers are config's Slack answerers: who an unassigned
	// question's reminder goes to.
	Answerers []string
	// Directory says who is in a Slack user group, when a reminder or
	// escalation to a group is turned into mail (the bot's, cached);
	// nil (no Slack): a group's members get no mail, and that is logged.
	Directory hitl.Directory
	Clock     hitl.Clock
	Logger    *slog.Logger
	// Every is how often the loop looks for mail due again (default 5 s).
	Every time.Duration
}

// Retry policy: the n-th failure waits retryBase·2ⁿ⁻¹, at most retryMax;
// after maxAttempts a mail is given up (and logged).
//
// Replicas: each mail is claimed (one at a time) for ClaimLease before it
// is sent, and its whole handling (reading the question, looking up the
// address, the SMTP exchange) is bounded by sendWithin, well inside the
// lease: a live mailer never outlasts its claim, so no two send one mail;
// a mailer that dies mid-send leaves the mail to another once the lease
// runs out.
const (
	retryBase   = 30 * time.Second
	retryMax    = 30 * time.Minute
	maxAttempts = 12
	eventPage   = 256
	sendWithin  = 2 * time.Minute
	// ClaimLease is how long a claimed mail is its mailer's alone.
	ClaimLease = 5 * time.Minute
)

// Mailer turns reminders and escalations into mail and sends it.
type Mailer struct {
	cfg  Config
	svc  Service
	box  hitl.MailOutbox
	log  *slog.Logger
	stop context.CancelFunc
	done chan struct{}
}

// New returns a mailer over svc and box.
func New(cfg Config, svc Service, box hitl.MailOutbox) *Mailer {
	if cfg.Clock == nil {
		cfg.Clock = hitl.SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Every <= 0 {
		cfg.Every = 5 * time.Second
	}
	return &Mailer{cfg: cfg, svc: svc, box: box, log: cfg.Logger.With("component", "email")}
}

// observer is how the mailer reads: every event, deciding nothing.
func observer(ctx context.Context) context.Context {
	return auth.WithPrincipal(ctx, auth.ObserverPrincipal("email"))
}

// Start runs the mailer in the background until Close: it follows the
// event log (notify.FollowTicks), and looks every Every for mail due again
// with time (retries, claims that ran out).
func (m *Mailer) Start() {
	ctx, stop := context.WithCancel(observer(context.Background()))
	m.stop, m.done = stop, make(chan struct{})
	go func() {
		defer close(m.done)
		tick := time.NewTicker(m.cfg.Every)
		defer tick.Stop()
		notify.FollowTicks(ctx, m.svc.Log.Changed, tick.C, m.step, func(err error) time.Duration {
			m.log.Error("email: reading events or the mail outbox failed", "err", err)
			return m.cfg.Every
		})
	}()
}

// step turns new events into mail and sends what is due; it reports how
// many events it read and mails it sent.
func (m *Mailer) step(ctx context.Context) (int, error) {
	read, perr := m.Project(ctx)
	if perr != nil {
		perr = fmt.Errorf("reading events: %w", perr)
	}
	sent, serr := m.Send(ctx)
	if serr != nil {
		serr = fmt.Errorf("reading the mail outbox: %w", serr)
	}
	return read + sent, errors.Join(perr, serr)
}

// Close stops the mailer and waits for it.
func (m *Mailer) Close() {
	if m.stop != nil {
		m.stop()
		<-m.done
	}
}

// Project turns the events after the outbox's cursor into mail, one page
// at a time, and reports how many events it read.
func (m *Mailer) Project(ctx context.Context) (int, error) {
	ctx = observer(ctx)
	n := 0
	for {
		cursor, err := m.box.MailCursor(ctx)
		if err != nil {
			return n, err
		}
		evs, last, err := m.svc.Log.Events(ctx, cursor, eventPage)
		if err != nil || last == cursor {
			return n, err
		}
		var ms []hitl.Mail
		for _, ev := range evs {
			more, err := m.mailFor(ctx, ev)
			if err != nil {
				return n, err
			}
			for i := range more {
				more[i].Event = ev.Seq
			}
			ms = append(ms, more...)
		}
		if err := m.box.EnqueueMail(ctx, last, ms); err != nil {
			return n, err
		}
		n += int(last - cursor)
	}
}

// mailFor is the mail an event owes (the root says who gets which): one
// per person, a user group's members looked up now, each person once.
func (m *Mailer) mailFor(ctx context.Context, ev *hitl.Event) ([]hitl.Mail, error) {
	if ev.Type != hitl.EventQuestionReminded && ev.Type != hitl.EventQuestionEscalated {
		return nil, nil
	}
	q := ev.Question
	if q == nil {
		var err error
		switch q, err = m.svc.Questions.Question(ctx, ev.QuestionID); fault.Code(err) {
		case "":
		case fault.ENOTFOUND:
			return nil, nil
		default:
			return nil, err
		}
	}
	if !Mailed(ev.Type, q) {
		return nil, nil
	}
	people, unread := Recipients(ctx, ev.Type, q, m.cfg.Answerers, m.cfg.Directory)
	for _, g := range unread {
		m.log.Warn("email: who is in a user group could not be read (no Slack, or usergroups.users.list failed); its members get no mail for this reminder",
			"group", g, "question", q.ID)
	}
	var ms []hitl.Mail
	for _, u := range people {
		ms = append(ms, hitl.Mail{QuestionID: q.ID, User: u, Nudge: ev.Type, NextAt: ev.At})
	}
	return ms, nil
}

// Send sends the mail due now and reports how many went out. A failure
// is retried later with backoff (the outbox keeps it); a question settled
// meanwhile, or a person without an address, is mailed nothing. Mail is
// claimed one at a time, so other mailers on the same outbox (replicas)
// send the rest meanwhile.
func (m *Mailer) Send(ctx context.Context) (int, error) {
	ctx = observer(ctx)
	sent := 0
	for {
		now := m.cfg.Clock.Now()
		due, err := m.box.ClaimMail(ctx, now, now.Add(ClaimLease), 1)
		if err != nil || len(due) == 0 {
			return sent, err
		}
		ok, err := m.sendOne(ctx, due[0])
		if err != nil {
			return sent, err
		}
		if ok {
			sent++
		}
	}
}

// runHandle is run id as people read it: its handle (as hitl runs shows
// it), or its id when that cannot be read.
func (m *Mailer) runHandle(ctx context.Context, id string) string {
	if m.svc.Runs == nil {
		return id
	}
	h, err := runhandle.Of(ctx, m.svc.Runs, id)
	if err != nil || h == "" {
		return id
	}
	return h
}

// sendOne sends mail, or records why not; ok reports it was sent. The
// error is the outbox's only.
func (m *Mailer) sendOne(ctx context.Context, mail hitl.Mail) (ok bool, err error) {
	wctx, cancel := context.WithTimeout(ctx, sendWithin)
	defer cancel()
	q, err := m.svc.Questions.Question(wctx, mail.QuestionID)
	if fault.Code(err) == fault.ENOTFOUND || (err == nil && !q.Pending()) {
		return false, m.complete(ctx, mail) // pruned or settled: nothing to nudge
	}
	var to string
	if err == nil {
		to, err = m.address(wctx, mail.User)
	}
	if err == nil && to == "" {
		m.log.Warn("email: no address for a reminder; set email.addresses or grant users:read.email", "user", mail.User, "question", mail.QuestionID)
		return false, m.complete(ctx, mail)
	}
	if err == nil {
		err = m.cfg.Send(wctx, to, Render(q, m.runHandle(wctx, q.RunID), mail.Nudge, m.cfg.WebURL))
		if err == nil {
			return true, m.complete(ctx, mail)
		}
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	mail.Attempts++
	mail.LastError = err.Error()
	if mail.Attempts >= maxAttempts {
		m.log.Error("email: giving up on a reminder", "user", mail.User, "question", mail.QuestionID, "attempts", mail.Attempts, "err", err)
		return false, m.complete(ctx, mail)
	}
	mail.NextAt = m.cfg.Clock.Now().Add(backoff(mail.Attempts))
	m.log.Warn("email: sending failed; retrying later", "user", mail.User, "question", mail.QuestionID, "attempt", mail.Attempts, "err", err)
	return false, m.lost(m.box.RetryMail(ctx, mail), mail, "retry")
}

// complete removes mail from the outbox: sent, or nothing to send.
func (m *Mailer) complete(ctx context.Context, mail hitl.Mail) error {
	return m.lost(m.box.CompleteMail(ctx, mail), mail, "completion")
}

// lost passes on err of the outbox, except a refusal because mail's claim
// ran out (this mailer was held up past ClaimLease): the mail is another
// mailer's now (ECONFLICT), or that one finished it (ENOTFOUND). Neither
// is sent again by this mailer; the refusal is logged.
func (m *Mailer) lost(err error, mail hitl.Mail, what string) error {
	switch fault.Code(err) {
	case fault.ECONFLICT, fault.ENOTFOUND:
		m.log.Warn("email: a mail's claim ran out before its "+what+"; another mailer has it", "user", mail.User, "question", mail.QuestionID, "claim", mail.Claim, "err", err)
		return nil
	}
	return err
}

// backoff is how long the n-th failure waits.
func backoff(n int) time.Duration {
	d := retryBase
	for i := 1; i < n && d < retryMax; i++ {
		d *= 2
	}
	return min(d, retryMax)
}

// address is where user's mail goes: config's map, else their Slack
// profile's email.
func (m *Mailer) address(ctx context.Context, user string) (string, error) {
	if a := m.cfg.Addresses[user]; a != "" {
		return a, nil
	}
	if m.cfg.Lookup == nil {
		return "", nil
	}
	return m.cfg.Lookup(ctx, user)
}
