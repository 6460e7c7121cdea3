package eventstream

import (
	"context"
	"errors"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/steer"
)

// ErrBehind ends a stream that fell Backlog batches behind the log (or
// whose broadcaster failed a read): its client resumes from its last id.
var ErrBehind = errors.New("the event stream fell behind the log")

// Request is what a stream shows and where it starts.
type Request struct {
	// Principal is whose view the stream is: the events it may see
	// (hitl.Event.VisibleTo), read from the log as it.
	Principal auth.Principal
	// Run, when set, keeps the events of that run only; catching up reads
	// them by the log's run index, so replaying a run costs what it holds.
	Run string
	// Resume starts the stream after the event After (a Last-Event-ID);
	// otherwise it starts live, at the end of the log.
	Resume bool
	After  uint64
	// NotPastEnd resumes at the end of the log when After is past it (a
	// page whose id is from before the log it now reads); otherwise the
	// stream skips every event up to After.
	NotPastEnd bool
	// Heartbeat is how often the stream beats (Sink.Beat) to keep its
	// connection open; none when zero.
	Heartbeat time.Duration
}

// Sink is where a stream writes: an edge's wire format.
type Sink interface {
	// Send writes frames, in log order, at once (one flush): events after
	// the stream's cursor that its principal may see, of its run when it
	// has one. A frame's B is the broadcaster's encoding when it has one.
	Send(frames []Frame) error
	// Beat writes a keep-alive.
	Beat() error
}

// Stream is one reader of the log: its position, what it shows, and its
// place among the broadcaster's subscribers.
type Stream struct {
	b   *Broadcaster
	sub *Subscriber
	req Request
	cur uint64 // every event up to cur was sent (or is not shown)
}

// Open starts a stream for req: it subscribes to the broadcaster (so
// nothing committed from now on is missed) and finds where the stream
// starts. Close it when done. Its error is the log's, before anything
// was sent.
func (b *Broadcaster) Open(ctx context.Context, req Request) (*Stream, error) {
	if req.Run != "" {
		if err := steer.ValidateRunID(req.Run); err != nil {
			return nil, err
		}
	}
	sub, err := b.Subscribe(ctx, req.Principal)
	if err != nil {
		return nil, err
	}
	st := &Stream{b: b, sub: sub, req: req, cur: req.After}
	if !req.Resume || req.NotPastEnd {
		// The broadcaster may trail the log by the change in flight.
		end, err := EndOfLog(ctx, b.log, sub.Start())
		if err != nil {
			b.Unsubscribe(sub)
			return nil, err
		}
		if !req.Resume || st.cur > end {
			st.cur = end
		}
	}
	return st, nil
}

// Close leaves the broadcaster.
func (st *Stream) Close() { st.b.Unsubscribe(st.sub) }

// Cursor is the Seq up to which the stream has sent (or skipped) the log.
func (st *Stream) Cursor() uint64 { return st.cur }

// Serve catches the stream up from its cursor, then delivers live, into
// sink until ctx or the broadcaster ends (nil), the stream falls behind
// (ErrBehind), the sink fails, or reading the log does (logged).
func (st *Stream) Serve(ctx context.Context, sink Sink) error {
	if err := st.catchUp(ctx, sink, st.sub.Start()); err != nil {
		return err
	}
	var beat <-chan time.Time
	if st.req.Heartbeat > 0 {
		c, stop := st.b.ticker(st.req.Heartbeat)
		defer stop()
		beat = c
	}
	for {
		select {
		case bt := <-st.sub.Batches():
			if err := st.deliver(ctx, sink, bt); err != nil {
				return err
			}
		case <-st.sub.Gone():
			return ErrBehind
		case <-beat:
			if err := sink.Beat(); err != nil {
				return err
			}
		case <-ctx.Done():
			return nil
		case <-st.b.base.Done():
			return nil
		}
	}
}

// deliver sends the frames of bt the stream has not sent; when bt was not
// read for the stream's principal, or a range is missing before it, the
// stream reads the log itself.
func (st *Stream) deliver(ctx context.Context, sink Sink, bt Batch) error {
	if bt.To <= st.cur {
		return nil
	}
	if !bt.Read || bt.From > st.cur {
		return st.catchUp(ctx, sink, bt.To)
	}
	if err := st.send(sink, bt.Frames); err != nil {
		return err
	}
	st.cur = bt.To
	return nil
}

// catchUp reads the log as the stream's principal until the stream has
// passed to, ReadBatch events at a time; a stream of one run reads that
// run's events by the log's index.
func (st *Stream) catchUp(ctx context.Context, sink Sink, to uint64) error {
	rctx := auth.WithPrincipal(ctx, st.req.Principal)
	for st.cur < to {
		var evs []*hitl.Event
		var last uint64
		var err error
		if st.req.Run != "" {
			evs, last, err = st.b.log.RunEvents(rctx, st.req.Run, st.cur, ReadBatch)
		} else {
			evs, last, err = st.b.log.Events(rctx, st.cur, ReadBatch)
		}
		if err != nil {
			if ctx.Err() == nil {
				st.b.logger.ErrorContext(ctx, "reading the event log", "after", st.cur, "err", err)
			}
			return err
		}
		if last == st.cur {
			return nil // nothing there (retention pruned it)
		}
		frames := make([]Frame, 0, len(evs))
		for _, ev := range evs {
			frames = append(frames, Frame{Seq: ev.Seq, RunID: ev.RunID, Event: ev})
		}
		if err := st.send(sink, frames); err != nil {
			return err
		}
		st.cur = last
	}
	return nil
}

// send hands sink the frames after the cursor that are of the stream's
// run (when it has one); nothing when none are.
func (st *Stream) send(sink Sink, frames []Frame) error {
	out := frames[:0:0]
	for _, f := range frames {
		if f.Seq <= st.cur || (st.req.Run != "" && f.RunID != st.req.Run) {
			continue
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil
	}
	return sink.Send(out)
}
