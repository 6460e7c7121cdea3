package memstore

import (
	"context"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// MailOutbox is hitl.MailOutbox in memory.
type MailOutbox struct {
	mu     sync.Mutex
	cursor uint64
	seq    uint64
	mail   map[uint64]hitl.Mail
}

var _ hitl.MailOutbox = (*MailOutbox)(nil)

// NewMailOutbox returns an empty mail outbox.
func NewMailOutbox() *MailOutbox { return &MailOutbox{mail: map[uint64]hitl.Mail{}} }

// MailCursor implements hitl.MailOutbox.
func (o *MailOutbox) MailCursor(context.Context) (uint64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.cursor, nil
}

// EnqueueMail implements hitl.MailOutbox.
func (o *MailOutbox) EnqueueMail(_ context.Context, cursor uint64, ms []hitl.Mail) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range ms {
		ms[i].Seq = 0
		if ms[i].Event != 0 && ms[i].Event <= o.cursor {
			continue // enqueued already
		}
		o.seq++
		ms[i].Seq = o.seq
		o.mail[o.seq] = ms[i]
	}
	o.cursor = max(o.cursor, cursor)
	return nil
}

// ClaimMail implements hitl.MailOutbox (by scanning: fine for tests).
func (o *MailOutbox) ClaimMail(_ context.Context, now, until time.Time, limit int) ([]hitl.Mail, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := []hitl.Mail{}
	for _, m := range o.mail {
		if !m.NextAt.After(now) {
			out = append(out, m)
		}
	}
	return lease(out, limit, func(m hitl.Mail) (time.Time, uint64) { return m.NextAt, m.Seq },
		func(m *hitl.Mail) { m.NextAt, m.Claim = until, m.Claim+1 },
		func(m hitl.Mail) { o.mail[m.Seq] = m }), nil
}

// CompleteMail implements hitl.MailOutbox.
func (o *MailOutbox) CompleteMail(_ context.Context, m hitl.Mail) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	old, ok := o.mail[m.Seq]
	if !ok {
		return nil
	}
	if err := hitl.MailClaimHeld(old, m); err != nil {
		return err
	}
	delete(o.mail, m.Seq)
	return nil
}

// RetryMail implements hitl.MailOutbox.
func (o *MailOutbox) RetryMail(_ context.Context, m hitl.Mail) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	old, ok := o.mail[m.Seq]
	if !ok {
		return fault.Errorf(fault.ENOTFOUND, "mail %d is not queued", m.Seq)
	}
	if err := hitl.MailClaimHeld(old, m); err != nil {
		return err
	}
	old.Attempts, old.NextAt, old.LastError = m.Attempts, m.NextAt, m.LastError
	o.mail[m.Seq] = old
	return nil
}
