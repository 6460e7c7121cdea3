package eventstream

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
)

// Backlog is how many batches a stream may have waiting before it is
// dropped: a stream that far behind ends, and its client resumes from the
// log (Last-Event-ID).
const Backlog = 64

// ReadBatch is how many events are read from the log at a time.
const ReadBatch = 256

// Frame is one log event as the streams get it: the event, and its bytes
// when the broadcaster encodes (once for every stream that shows it).
type Frame struct {
	Seq   uint64
	RunID string
	Event *hitl.Event // shared by every stream: read only
	B     []byte
}

// Batch is what the reader hands a stream: the log moved from after From
// to To. When Read is set, Frames are the events of that range the
// stream's principal may see; otherwise the stream reads the range itself.
type Batch struct {
	From, To uint64
	Read     bool
	Frames   []Frame
}

// Subscriber is one stream as the broadcaster sees it.
type Subscriber struct {
	p     auth.Principal
	key   string
	start uint64
	ch    chan Batch
	gone  chan struct{}
}

// Start is the reader's position when the stream subscribed: it gets
// every batch after it, and catches up to it from the log itself.
func (s *Subscriber) Start() uint64 { return s.start }

// Batches is the stream's batches, in log order.
func (s *Subscriber) Batches() <-chan Batch { return s.ch }

// Gone is closed when the stream is dropped for falling behind (or after
// a failed read): it ends, and its client resumes from the log.
func (s *Subscriber) Gone() <-chan struct{} { return s.gone }

// Broadcaster reads the event log once per change and fans the events out
// to every stream without blocking on any of them: each distinct
// principal among the streams gets the events the root lets it see
// (hitl.Event.VisibleTo, the rule service.Log's Events applies), decided
// once per principal, not per stream. A Stream filters by run itself.
// The reader runs while someone listens.
type Broadcaster struct {
	log    hitl.EventLog
	logger *slog.Logger
	base   context.Context // reads run in it: the reader ends with it
	encode func(*hitl.Event) ([]byte, error)
	// ticker makes a stream's heartbeat (time.NewTicker; a test's
	// hand-driven ticks).
	ticker func(time.Duration) (<-chan time.Time, func())

	mu      sync.Mutex
	subs    map[*Subscriber]struct{}
	pos     uint64 // every event up to pos was handed out
	known   bool   // pos is set (false while nobody listens)
	running bool
}

// New returns a broadcaster of log. encode, when not nil, encodes each
// event once for every stream (Frame.B); reads run in base.
func New(base context.Context, log hitl.EventLog, logger *slog.Logger, encode func(*hitl.Event) ([]byte, error)) *Broadcaster {
	if logger == nil {
		logger = slog.Default()
	}
	return &Broadcaster{log: log, logger: logger, base: base, encode: encode, ticker: newTicker, subs: map[*Subscriber]struct{}{}}
}

// newTicker is a wall-clock ticker of period d and its stop.
func newTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// Subscribe registers a stream for p. The stream gets every batch after
// sub.Start(); it catches up to it from the log itself.
func (b *Broadcaster) Subscribe(ctx context.Context, p auth.Principal) (*Subscriber, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.known {
		end, err := EndOfLog(ctx, b.log, 0)
		if err != nil {
			return nil, err
		}
		b.pos, b.known = end, true
	}
	sub := &Subscriber{p: p, key: principalKey(p), start: b.pos, ch: make(chan Batch, Backlog), gone: make(chan struct{})}
	b.subs[sub] = struct{}{}
	if !b.running {
		b.running = true
		go b.run()
	}
	return sub, nil
}

// Unsubscribe forgets sub. Batches sent to it after are never read.
func (b *Broadcaster) Unsubscribe(sub *Subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.subs, sub)
}

// Count is how many streams are subscribed.
func (b *Broadcaster) Count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

// run is the reader: at each change it reads the new events once per
// distinct principal and hands them to every stream. It ends when nobody
// listens (the next Subscribe starts it again) or base ends.
func (b *Broadcaster) run() {
	for {
		changed := b.log.Changed()
		from, views := b.snapshot()
		if views == nil {
			return
		}
		full, err := b.round(from, views)
		if err != nil {
			if b.base.Err() != nil {
				b.stop()
				return
			}
			b.logger.Error("reading the event log for the event streams", "after", from, "err", err)
			b.dropAll()
		}
		if full {
			continue
		}
		select {
		case <-changed:
		case <-b.base.Done():
			b.stop()
			return
		}
	}
}

// stop marks the reader ended (base ended): the streams end with it.
func (b *Broadcaster) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.running = false
}

// snapshot returns where the reader is and one principal per distinct key
// among the streams (nil when there are none: then the reader ends, and
// the position is forgotten, so the next stream finds the end of the log
// again).
func (b *Broadcaster) snapshot() (uint64, map[string]auth.Principal) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.subs) == 0 {
		b.known, b.running = false, false
		return 0, nil
	}
	views := map[string]auth.Principal{}
	for sub := range b.subs {
		views[sub.key] = sub.p
	}
	return b.pos, views
}

// reader is the principal the broadcaster reads the log as: one who may
// read every event (hitl.Event.VisibleTo), so one read serves every
// stream.
var reader = auth.Principal{ID: "system:broadcast", Scopes: []auth.Scope{auth.ScopeAdmin}}

// round reads the events after from once, keeps for each view those its
// principal may see (the root's hitl.Event.VisibleTo, the rule the log's
// Events applies), and hands them out. It reports whether it read a full
// batch (more may be waiting).
func (b *Broadcaster) round(from uint64, views map[string]auth.Principal) (bool, error) {
	evs, to, err := b.log.Events(auth.WithPrincipal(b.base, reader), from, ReadBatch)
	if err != nil {
		return false, err
	}
	if to == from {
		return false, nil
	}
	all := make([]Frame, 0, len(evs))
	for _, ev := range evs {
		f := Frame{Seq: ev.Seq, RunID: ev.RunID, Event: ev}
		if b.encode != nil {
			if f.B, err = b.encode(ev); err != nil {
				return false, err
			}
		}
		all = append(all, f)
	}
	read := make(map[string][]Frame, len(views))
	for key, p := range views {
		frames := make([]Frame, 0, len(all))
		for _, f := range all {
			if f.Event.VisibleTo(p) {
				frames = append(frames, f)
			}
		}
		read[key] = frames
	}
	b.handOut(Batch{From: from, To: to}, read)
	return to-from >= ReadBatch, nil
}

// handOut moves the position to bt.To and queues bt for every stream,
// with the frames read for its principal (a stream that subscribed during
// the read, with a principal nobody else has, reads the range itself). A
// stream whose queue is full is dropped.
func (b *Broadcaster) handOut(bt Batch, read map[string][]Frame) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pos = bt.To
	for sub := range b.subs {
		out := bt
		out.Frames, out.Read = read[sub.key]
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
func (b *Broadcaster) dropAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for sub := range b.subs {
		delete(b.subs, sub)
		close(sub.gone)
	}
}

// principalKey tells principals apart for reading the log: two streams
// with the same key see the same events.
func principalKey(p auth.Principal) string {
	scopes := make([]string, len(p.Scopes))
	for i, s := range p.Scopes {
		scopes[i] = string(s)
	}
	slices.Sort(scopes)
	groups := slices.Sorted(slices.Values(p.Groups))
	return fmt.Sprintf("%q %t %q %q %q", p.ID, p.Local, strings.Join(scopes, ","), p.SlackUser, strings.Join(groups, ","))
}

// EndOfLog returns the Seq of the last event in the log, known to be at
// least from: the log's LastSeq when it has one (the service does), else
// probing with one-event reads: one when nothing came after from, about
// 2·log2(n) for n events.
func EndOfLog(ctx context.Context, log hitl.EventLog, from uint64) (uint64, error) {
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
