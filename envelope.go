package hitl

import (
	"context"
	"time"
)

// EnvelopeWindow is how long an edge remembers an envelope it handled:
// Slack redelivers an unacked Socket Mode envelope within seconds to
// minutes, and retries an Events API event three times (at once, after a
// minute, after five).
const EnvelopeWindow = 15 * time.Minute

// EnvelopePrune is how many expired records SeeEnvelope deletes for each
// id it records: old records go at least as fast as new ones come.
const EnvelopePrune = 4

// EnvelopeStore remembers which envelopes an edge has handled (Slack
// Socket Mode envelope ids and Events API event ids), so an envelope
// delivered again, to this process or to another replica on the same
// database, is handled once. It only stores: the edge says what an id is
// and how long it counts.
type EnvelopeStore interface {
	// SeeEnvelope records each of ids ("" ids are skipped) as seen at now,
	// atomically, and reports seen when any of them had been recorded
	// after now-window: of several calls naming one id within the window,
	// concurrent ones included, exactly one reports false. A record
	// older than window counts as unseen and is replaced. In the same
	// transaction it deletes up to EnvelopePrune records per id that are
	// older than window, so the records stay bounded by the traffic of
	// one window, and a service that receives nothing writes nothing.
	SeeEnvelope(ctx context.Context, now time.Time, window time.Duration, ids ...string) (seen bool, err error)
}
