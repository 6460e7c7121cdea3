package slack

import (
	"context"

	"github.com/hitlbot/hitl"
)

// first reports whether none of ids (an envelope's id, an Events API
// event's id) was handled within hitl.EnvelopeWindow, by this process or
// by another replica on the same database, and records them all: an
// envelope Slack redelivers (after a missed ack, a reconnect, or to
// another replica's connection) is acked but not applied twice. When the
// store cannot say, the envelope is handled: a person's click is not
// dropped, and the root's rules (first answer wins, control request ids)
// keep a repeat harmless.
func (b *Bot) first(ctx context.Context, ids ...string) bool {
	seen, err := b.cfg.Envelopes.SeeEnvelope(ctx, b.cfg.Clock.Now(), hitl.EnvelopeWindow, ids...)
	if err != nil {
		b.log.Warn("slack envelope dedup: the store did not answer; handling the envelope", "ids", ids, "err", err)
		return true
	}
	return !seen
}
