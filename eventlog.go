package hitl

import "context"

// EventLog is the durable, ordered feed of events (the audit log) with a way
// to wait for more without polling. service.Log implements it.
type EventLog interface {
	// Events reads up to limit events with Seq > after, in order, and
	// returns those the principal in ctx may see, with the Seq of the last
	// event read (after, when none): the cursor to read on from.
	Events(ctx context.Context, after uint64, limit int) (evs []*Event, last uint64, err error)
	// RunEvents is Events for the events of one run (Event.RunID), read
	// by an index: last is the Seq up to which the log was read.
	RunEvents(ctx context.Context, run string, after uint64, limit int) (evs []*Event, last uint64, err error)
	// Changed returns a channel closed at the next committed change. Take it
	// before reading Events so that no change is missed.
	Changed() <-chan struct{}
}
