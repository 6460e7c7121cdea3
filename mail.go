package hitl

import (
	"context"
	"time"

	"github.com/hitlbot/hitl/fault"
)

// Email is the fallback channel (docs/operations.md#reminders-escalation-and-reassignment): the reminders and escalations of
// blocking questions and approvals also go by email, to the people they
// re-notify. The email edge turns events into Mail in a durable outbox
// (MailOutbox) and sends them, retrying failures; this file says who gets
// which, once.

// Mail is one email the email edge owes: a reminder or escalation of a
// question, to one person.
type Mail struct {
	Seq        uint64    `json:"seq"` // set by the MailOutbox
	QuestionID string    `json:"questionId"`
	User       string    `json:"user"`  // the Slack user it is for
	Nudge      EventType `json:"nudge"` // EventQuestionReminded or EventQuestionEscalated
	// Event is the Seq of the event the mail comes from (0: none). An
	// outbox shared by several processes keeps only the mail of events
	// after its cursor, so two that read the same events enqueue it once.
	Event uint64 `json:"event,omitempty"`
	// Claim numbers the claims of the mail (set by ClaimMail): the
	// claimer's token. A completion of an earlier claim than the mail's
	// last is refused, so a mailer whose claim ran out (paused past its
	// lease) cannot clobber the mail another has claimed since.
	Claim     uint64    `json:"claim,omitempty"`
	Attempts  int       `json:"attempts,omitempty"`
	NextAt    time.Time `json:"nextAt"` // when it is due (again)
	LastError string    `json:"lastError,omitempty"`
}

// MailOutbox is the email edge's durable state: a cursor into the event
// log and the mail owed, indexed by when each is due. Every method is
// durable when it returns. Several processes may share one (replicas on
// one database): each mail is claimed by one of them at a time.
type MailOutbox interface {
	// MailCursor returns the Seq of the last event turned into mail.
	MailCursor(ctx context.Context) (uint64, error)
	// EnqueueMail appends ms (setting their Seq) and moves the cursor to
	// cursor, atomically: no event is turned into mail twice. A mail of
	// an event at or before the stored cursor was enqueued already (by
	// another process that read the same events) and is left out, its
	// Seq 0; the cursor only moves on.
	EnqueueMail(ctx context.Context, cursor uint64, ms []Mail) error
	// ClaimMail returns up to limit mails (0: all) whose NextAt is at or
	// before now, earliest first (then by Seq), and claims them until
	// until: their NextAt becomes until and their Claim the next number
	// (as returned), so nobody, in this process or another, claims them
	// again before then. The claimer completes or retries each; one that
	// dies leaves its mail due again when the claim runs out. Its cost
	// grows with the number returned.
	ClaimMail(ctx context.Context, now, until time.Time, limit int) ([]Mail, error)
	// CompleteMail removes mail m.Seq (sent, or given up) if m.Claim is
	// still its last claim; ECONFLICT when it was claimed again since (the
	// caller's claim ran out: the mail is another's). A mail no longer
	// queued is not an error.
	CompleteMail(ctx context.Context, m Mail) error
	// RetryMail stores m's Attempts, NextAt and LastError, ending the
	// claim, if m.Claim is still the mail's last claim; ECONFLICT when it
	// was claimed again since, ENOTFOUND when mail m.Seq is no longer
	// queued.
	RetryMail(ctx context.Context, m Mail) error
}

// MailClaimHeld is nil when m (a claimer's copy) still holds the claim
// of stored (the outbox's copy of the same mail), else ECONFLICT. A
// MailOutbox completes or retries a mail only when it is nil.
func MailClaimHeld(stored, m Mail) error {
	if stored.Claim != m.Claim {
		return fault.Errorf(fault.ECONFLICT, "mail %d was claimed again since claim %d (now claim %d)", m.Seq, m.Claim, stored.Claim)
	}
	return nil
}

// Reminded is who a reminder of q re-notifies: its assignees and the
// people escalation added, else answerers (the configured answerers).
func (q *Question) Reminded(answerers []string) []string {
	if who := q.Listed(); len(who) > 0 {
		return who
	}
	return answerers
}

// AskedBy reports whether Slack user user asked q (through a token
// speaking for them, or in Slack).
func (q *Question) AskedBy(user string) bool {
	return q.AskerUser == user || q.Asker == "slack:"+user
}
