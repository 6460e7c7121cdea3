package hitl

import "context"

// EventStore is the event log (the audit log) as stored: events in the
// order appended, their Seq rising, read from a Seq on, whole or by run.
// QuestionStore's and RunStore's writes append their events in their own
// commit; AppendEvent is for an event on its own.
type EventStore interface {
	// AppendEvent appends ev (setting its Seq) on its own: audit entries
	// that change no question (refusals).
	AppendEvent(ctx context.Context, ev *Event) error

	// Events returns up to limit events with Seq > after, in order.
	Events(ctx context.Context, after uint64, limit int) ([]*Event, error)

	// RunEvents returns up to limit events of run runID (Event.RunID) with
	// Seq > after, in order, and through: the Seq up to which it read the
	// log (the last event returned when it stopped at limit, else the end
	// of the log, or after when that is further). It reads by an index: its
	// cost grows with the events returned, not with the log. limit <= 0
	// means no limit.
	RunEvents(ctx context.Context, runID string, after uint64, limit int) (evs []*Event, through uint64, err error)

	// LastSeq returns the Seq of the last event appended (0 for none).
	LastSeq(ctx context.Context) (uint64, error)
}
