package memstore

import (
	"context"
	"sort"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// webhooks is the webhook outbox of a Store (hitl.WebhookOutbox), read by
// scanning: fine for tests.
type webhooks struct {
	seq  uint64
	all  map[uint64]hitl.WebhookDelivery
	last map[string]time.Time // target → last success
}

// enqueueWebhooks stores ev's deliveries (s.mu held), after ev got its Seq.
func (s *Store) enqueueWebhooks(ev *hitl.Event) {
	for i := range ev.Webhooks {
		d := &ev.Webhooks[i]
		d.EventSeq, d.Status, d.Claim, d.Attempts = ev.Seq, hitl.WebhookPending, 0, 0
		s.putNewWebhook(d)
	}
}

func (s *Store) putNewWebhook(d *hitl.WebhookDelivery) {
	if s.hooks.all == nil {
		s.hooks.all, s.hooks.last = map[uint64]hitl.WebhookDelivery{}, map[string]time.Time{}
	}
	s.hooks.seq++
	d.Seq = s.hooks.seq
	s.hooks.all[d.Seq] = *d
}

// head reports whether d is the first pending delivery of its queue.
func (s *Store) head(d hitl.WebhookDelivery) bool {
	for _, o := range s.hooks.all {
		if o.Seq < d.Seq && o.Status == hitl.WebhookPending && o.RunID == d.RunID && o.Target() == d.Target() {
			return false
		}
	}
	return true
}

// ClaimWebhooks implements hitl.WebhookOutbox.
func (s *Store) ClaimWebhooks(_ context.Context, now, until time.Time, c hitl.WebhookClaim) ([]hitl.WebhookDelivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	due := []hitl.WebhookDelivery{}
	for _, d := range s.hooks.all {
		if d.Status == hitl.WebhookPending && !d.NextAt.After(now) && s.head(d) {
			due = append(due, d)
		}
	}
	due = lease(due, 0, func(d hitl.WebhookDelivery) (time.Time, uint64) { return d.NextAt, d.Seq }, func(*hitl.WebhookDelivery) {}, func(hitl.WebhookDelivery) {})
	out := []hitl.WebhookDelivery{}
	pick := c.Pick()
	for _, d := range due {
		if pick.Full() {
			break
		}
		if pick.Take(d.Target(), d.Asker) {
			d.NextAt, d.Claim = until, d.Claim+1
			s.hooks.all[d.Seq] = d
			out = append(out, d)
		}
	}
	return out, nil
}

// SettleWebhook implements hitl.WebhookOutbox.
func (s *Store) SettleWebhook(_ context.Context, d hitl.WebhookDelivery) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.hooks.all[d.Seq]
	if !ok {
		return fault.Errorf(fault.ENOTFOUND, "webhook delivery %d is not stored", d.Seq)
	}
	if err := hitl.WebhookClaimHeld(old, d); err != nil {
		return err
	}
	old.Status, old.Attempts, old.NextAt, old.LastError, old.LastCode, old.SettledAt = d.Status, d.Attempts, d.NextAt, d.LastError, d.LastCode, d.SettledAt
	s.hooks.all[d.Seq] = old
	if d.Status == hitl.WebhookDelivered && d.SettledAt != nil {
		s.hooks.last[old.Target()] = *d.SettledAt
	}
	return nil
}

// WebhookDelivery implements hitl.WebhookOutbox.
func (s *Store) WebhookDelivery(_ context.Context, seq uint64) (hitl.WebhookDelivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.hooks.all[seq]
	if !ok {
		return d, fault.Errorf(fault.ENOTFOUND, "webhook delivery %d is not stored", seq)
	}
	return d, nil
}

// WebhookDeliveries implements hitl.WebhookOutbox.
func (s *Store) WebhookDeliveries(_ context.Context, f hitl.WebhookFilter) ([]hitl.WebhookDelivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []hitl.WebhookDelivery{}
	for _, d := range s.hooks.all {
		if (f.Status == "" || d.Status == f.Status) && (f.Before == 0 || d.Seq < f.Before) {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq > out[j].Seq })
	if len(out) > f.PageSize() {
		out = out[:f.PageSize()]
	}
	return out, nil
}

// ReplayWebhook implements hitl.WebhookOutbox.
func (s *Store) ReplayWebhook(_ context.Context, seq uint64, now time.Time) (hitl.WebhookDelivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.hooks.all[seq]
	if !ok {
		return d, fault.Errorf(fault.ENOTFOUND, "webhook delivery %d is not stored", seq)
	}
	d = hitl.WebhookReplayOf(d, now)
	s.putNewWebhook(&d)
	return d, nil
}

// WebhookStats implements hitl.WebhookOutbox.
func (s *Store) WebhookStats(context.Context) ([]hitl.WebhookTargetStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var tally hitl.WebhookTally
	for _, d := range s.hooks.all {
		tally.Add(d.Target(), d.Status, 1)
	}
	for t, at := range s.hooks.last {
		tally.Succeeded(t, at)
	}
	return tally.Stats(), nil
}

// PruneWebhooks implements hitl.WebhookOutbox.
func (s *Store) PruneWebhooks(_ context.Context, before time.Time, limit int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for seq, d := range s.hooks.all {
		if n == limit {
			break
		}
		if d.Status != hitl.WebhookPending && d.SettledAt != nil && d.SettledAt.Before(before) {
			delete(s.hooks.all, seq)
			n++
		}
	}
	return n, nil
}
