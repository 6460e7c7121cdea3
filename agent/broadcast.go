package agent

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/hitlbot/hitl"
)

// streamBacklog is how many batches a stream may have waiting before it
// is dropped: a stream that far behind ends, and its client resumes from
// the log with Last-Event-ID.
const streamBacklog = 64

// frame is one log event encoded once for every stream that shows it.
type frame struct {
	seq uint64
	job string
	b   []byte
}

// batch is what the reader hands a stream: the log moved from after from
// to to. When read is set, frames are the events of that range the
// stream's principal may see; otherwise the stream reads the range itself.
type batch struct {
	from, to uint64
	read     bool
	frames   []frame
}

// subscriber is one SSE stream as the broadcaster sees it.
type subscriber struct {
	p     hitl.Principal
	key   string
	start uint64 // the reader's position when it subscribed
	ch    chan batch
	gone  chan struct{} // closed when dropped for falling behind
}

// broadcaster reads the event log once per change, for each distinct
// principal among the streams, and fans the events out to every stream
// without blocking on any of them. Streams filter by job themselves.
//
// The root decides which events a principal may read (hitl.EventLog's
// Events), and has no predicate for one event, so the reader asks it once
// per distinct principal rather than once per stream.
type broadcaster struct {
	log    hitl.EventLog
	logger *slog.Logger
	base   context.Context // the server's: the reader ends with it

	mu      sync.Mutex
	subs    map[*subscriber]struct{}
	pos     uint64 // every event up to pos was handed out
	known   bool   // pos is set (false while nobody listens)
	running bool
}

func newBroadcaster(base context.Context, log hitl.EventLog, logger *slog.Logger) *broadcaster {
	return &broadcaster{log: log, logger: logger, base: base, subs: map[*subscriber]struct{}{}}
}

// subscribe registers a stream for p. The stream gets every batch after
// sub.start; it catches up to sub.start from the log itself.
func (b *broadcaster) subscribe(ctx context.Context, p hitl.Principal) (*subscriber, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.known {
		end, err := endOfLog(ctx, b.log, 0)
		if err != nil {
			return nil, err
		}
		b.pos, b.known = end, true
	}
	sub := &subscriber{p: p, key: principalKey(p), start: b.pos, ch: make(chan batch, streamBacklog), gone: make(chan struct{})}
	b.subs[sub] = struct{}{}
	if !b.running {
		b.running = true
		go b.run()
	}
	return sub, nil
}

// unsubscribe forgets sub. Batches sent to it after are never read.
func (b *broadcaster) unsubscribe(sub *subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.subs, sub)
}

// run is the reader: at each change it reads the new events once per
// distinct principal and hands them to every stream.
func (b *broadcaster) run() {
	for {
		changed := b.log.Changed()
		from, views := b.snapshot()
		full := false
		if views != nil {
			var err error
			if full, err = b.round(from, views); err != nil {
				if b.base.Err() != nil {
					return
				}
				b.logger.Error("reading the event log for the event streams", "after", from, "err", err)
				b.dropAll()
			}
		}
		if full {
			continue
		}
		select {
		case <-changed:
		case <-b.base.Done():
			return
		}
	}
}

// snapshot returns where the reader is and one principal per distinct key
// among the streams (nil when there are none, and then the position is
// forgotten: the next stream finds the end of the log again).
func (b *broadcaster) snapshot() (uint64, map[string]hitl.Principal) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.subs) == 0 {
		b.known = false
		return 0, nil
	}
	views := map[string]hitl.Principal{}
	for sub := range b.subs {
		views[sub.key] = sub.p
	}
	return b.pos, views
}

// round reads the events after from for each view, and hands them out. It
// reports whether it read a full batch (more may be waiting).
func (b *broadcaster) round(from uint64, views map[string]hitl.Principal) (bool, error) {
	to, first := from, true
	read := make(map[string][]frame, len(views))
	encoded := map[uint64][]byte{}
	full := false
	for key, p := range views {
		evs, last, err := b.log.Events(hitl.WithPrincipal(b.base, p), from, eventBatch)
		if err != nil {
			return false, err
		}
		if first {
			to, first, full = last, false, last-from >= eventBatch
		} else if last < to {
			continue // the log shrank under the read (retention): this view reads it itself
		}
		frames := make([]frame, 0, len(evs))
		for _, ev := range evs {
			if ev.Seq > to {
				break
			}
			data, ok := encoded[ev.Seq]
			if !ok {
				if data, err = encodeFrame(ev); err != nil {
					return false, err
				}
				encoded[ev.Seq] = data
			}
			frames = append(frames, frame{seq: ev.Seq, job: ev.JobID, b: data})
		}
		read[key] = frames
	}
	if to == from {
		return false, nil
	}
	b.handOut(batch{from: from, to: to}, read)
	return full, nil
}

// handOut moves the position to bt.to and queues bt for every stream,
// with the frames read for its principal (a stream that subscribed during
// the read, with a principal nobody else has, reads the range itself). A
// stream whose queue is full is dropped.
func (b *broadcaster) handOut(bt batch, read map[string][]frame) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pos = bt.to
	for sub := range b.subs {
		out := bt
		out.frames, out.read = read[sub.key]
		select {
		case sub.ch <- out:
		default:
			delete(b.subs, sub)
			close(sub.gone)
		}
	}
}

// dropAll ends every stream (after a failed read): clients resume from
// the log with Last-Event-ID.
func (b *broadcaster) dropAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for sub := range b.subs {
		delete(b.subs, sub)
		close(sub.gone)
	}
}

// principalKey tells principals apart for reading the log: two streams
// with the same key see the same events.
func principalKey(p hitl.Principal) string {
	scopes := make([]string, len(p.Scopes))
	for i, s := range p.Scopes {
		scopes[i] = string(s)
	}
	slices.Sort(scopes)
	groups := slices.Sorted(slices.Values(p.Groups))
	return fmt.Sprintf("%q %t %q %q %q", p.ID, p.Local, strings.Join(scopes, ","), p.SlackUser, strings.Join(groups, ","))
}

// endOfLog returns the Seq of the last event in the log, known to be at
// least from: the log's LastSeq when it has one (the service does), else
// probing with one-event reads: one when nothing came after from, about
// 2·log2(n) for n events.
func endOfLog(ctx context.Context, log hitl.EventLog, from uint64) (uint64, error) {
	if l, ok := log.(interface {
		LastSeq(context.Context) (uint64, error)
	}); ok {
		n, err := l.LastSeq(ctx)
		return max(n, from), err
	}
	// after reports the first Seq after x, or x when there is none.
	after := func(x uint64) (uint64, error) {
		_, last, err := log.Events(ctx, x, 1)
		return last, err
	}
	lo, hi, step := from, uint64(0), uint64(1)
	for {
		x := lo + step - 1
		next, err := after(x)
		if err != nil {
			return 0, err
		}
		if next == x {
			hi = x
			break
		}
		lo = next
		step *= 2
	}
	// The end is in [lo, hi], and nothing comes after hi.
	for lo < hi {
		mid := lo + (hi-lo)/2
		next, err := after(mid)
		if err != nil {
			return 0, err
		}
		if next == mid {
			hi = mid
		} else {
			lo = next
		}
	}
	return lo, nil
}
