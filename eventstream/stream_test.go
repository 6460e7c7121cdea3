package eventstream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/require"
)

// recSink records what a stream sends: every frame, in order, and every
// beat. When hold is set, Send waits for it to close.
type recSink struct {
	frames chan Frame
	beats  chan struct{}
	hold   chan struct{}
	err    error // what Send returns
}

func newRecSink() *recSink {
	return &recSink{frames: make(chan Frame, 4096), beats: make(chan struct{}, 16)}
}

func (s *recSink) Send(frames []Frame) error {
	if s.hold != nil {
		<-s.hold
	}
	for _, f := range frames {
		s.frames <- f
	}
	return s.err
}

func (s *recSink) Beat() error {
	s.beats <- struct{}{}
	return nil
}

// take waits for the sink's next n frames.
func (s *recSink) take(t *testing.T, n int) []Frame {
	t.Helper()
	out := make([]Frame, 0, n)
	deadline := time.After(testDeadline)
	for len(out) < n {
		select {
		case f := <-s.frames:
			out = append(out, f)
		case <-deadline:
			t.Fatalf("timed out after %d of %d frames", len(out), n)
		}
	}
	return out
}

// serve runs st.Serve into sink until the test ends (or cancel); done
// gets what Serve returned.
func serve(t *testing.T, st *Stream, sink Sink) (cancel func(), done <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch, fin := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(fin)
		ch <- st.Serve(ctx, sink)
	}()
	t.Cleanup(func() {
		cancel()
		<-fin
	})
	return cancel, ch
}

// served waits for Serve to return and gives its error.
func served(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(testDeadline):
		t.Fatal("the stream did not end")
	}
	return nil
}

// seqs is the Seq of each frame.
func seqs(frames []Frame) []uint64 {
	out := make([]uint64, len(frames))
	for i, f := range frames {
		out[i] = f.Seq
	}
	return out
}

// ask creates a question in run as who and returns the Seq of the log's
// last event after it.
func ask(t *testing.T, svc *service.Service, who auth.Principal, run string) uint64 {
	t.Helper()
	_, _, err := svc.Questions.Create(auth.WithPrincipal(context.Background(), who), run, textQ)
	require.NoError(t, err)
	end, err := EndOfLog(context.Background(), svc.Log, 0)
	require.NoError(t, err)
	return end
}

// logAs reads the whole log as p through the log's own filter (not the
// stream's): the events a stream of p must send, in order.
func logAs(t *testing.T, svc *service.Service, p auth.Principal, run string, after uint64) []uint64 {
	t.Helper()
	ctx := auth.WithPrincipal(context.Background(), p)
	var out []uint64
	for {
		evs, last, err := svc.Log.Events(ctx, after, ReadBatch)
		require.NoError(t, err)
		if last == after {
			return out
		}
		for _, ev := range evs {
			if run == "" || ev.RunID == run {
				out = append(out, ev.Seq)
			}
		}
		after = last
	}
}

func TestStream(t *testing.T) {
	// The log before every row: three askers' questions, each in its own
	// run: events 1..3, a question being one event (checked below).
	a := auth.TokenPrincipal("a", []auth.Scope{auth.ScopeAsk}, "")
	bee := auth.TokenPrincipal("b", []auth.Scope{auth.ScopeAsk}, "")
	local := principaltest.Principal("local")
	type q struct {
		who auth.Principal
		run string
	}
	before := []q{{a, "job-a"}, {bee, "job-b"}, {a, "job-a"}}
	// After the stream opens: one more of each.
	after := []q{{bee, "job-b"}, {a, "job-a"}}
	tests := []struct {
		name string
		req  Request
		// cursor is where the stream starts, from the log's end before
		// the row's stream opens (end) and the Seq of the first event (1).
		cursor func(end uint64) uint64
		runs   []string // the runs of the frames it sends, in order
	}{
		{"live_starts_at_the_end_of_the_log",
			Request{Principal: local},
			func(end uint64) uint64 { return end }, []string{"job-b", "job-a"}},
		{"resume_from_0_replays_then_goes_live",
			Request{Principal: local, Resume: true},
			func(uint64) uint64 { return 0 }, []string{"job-a", "job-b", "job-a", "job-b", "job-a"}},
		{"resume_from_a_cursor_sends_what_came_after_it",
			Request{Principal: local, Resume: true, After: 1},
			func(uint64) uint64 { return 1 }, []string{"job-b", "job-a", "job-b", "job-a"}},
		{"resume_past_the_end_skips_up_to_the_cursor",
			Request{Principal: local, Resume: true, After: 4},
			func(uint64) uint64 { return 4 }, []string{"job-a"}},
		{"resume_past_the_end_not_past_end_starts_at_the_end",
			Request{Principal: local, Resume: true, After: 1 << 40, NotPastEnd: true},
			func(end uint64) uint64 { return end }, []string{"job-b", "job-a"}},
		{"resume_before_the_end_not_past_end_resumes_there",
			Request{Principal: local, Resume: true, After: 2, NotPastEnd: true},
			func(uint64) uint64 { return 2 }, []string{"job-a", "job-b", "job-a"}},
		{"an_asker_sees_only_its_own_questions",
			Request{Principal: a, Resume: true},
			func(uint64) uint64 { return 0 }, []string{"job-a", "job-a", "job-a"}},
		{"an_answerer_sees_every_question",
			Request{Principal: principaltest.Principal("slack:U024BE7LH"), Resume: true},
			func(uint64) uint64 { return 0 }, []string{"job-a", "job-b", "job-a", "job-b", "job-a"}},
		{"a_run_keeps_that_runs_events_caught_up_and_live",
			Request{Principal: local, Run: "job-b", Resume: true},
			func(uint64) uint64 { return 0 }, []string{"job-b", "job-b"}},
		{"an_asker_in_its_run_from_a_cursor",
			Request{Principal: a, Run: "job-a", Resume: true, After: 1},
			func(uint64) uint64 { return 1 }, []string{"job-a", "job-a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, b := newBroadcastEnv(t)
			var end uint64
			for _, q := range before {
				end = ask(t, svc, q.who, q.run)
			}
			require.Equal(t, uint64(3), end, "a question is one event: the rows' cursors count on it")
			st, err := b.Open(context.Background(), tt.req)
			require.NoError(t, err)
			defer st.Close()
			require.Equal(t, tt.cursor(end), st.Cursor(), "where the stream starts")
			sink := newRecSink()
			serve(t, st, sink)
			for _, q := range after {
				end = ask(t, svc, q.who, q.run)
			}
			// A last event every row sees marks the end: anything sent
			// twice or out of order before it shows in the order.
			by, run := local, "job-end"
			if tt.req.Principal.ID == a.ID {
				by = a
			}
			if tt.req.Run != "" {
				run = tt.req.Run
			}
			sentinel := ask(t, svc, by, run)
			got := sink.take(t, len(tt.runs)+1)
			var runs []string
			for _, f := range got[:len(got)-1] {
				runs = append(runs, f.RunID)
			}
			require.Equal(t, tt.runs, runs, "the runs of the frames sent")
			require.Equal(t, sentinel, got[len(got)-1].Seq, "the last event comes last, once")
			want := logAs(t, svc, tt.req.Principal, tt.req.Run, tt.cursor(3))
			require.Equal(t, want, seqs(got), "every event the log shows the principal after the cursor, once, in order")
		})
	}
}

// TestStreamSwitch crosses from catching up to live delivery while the
// log grows at each step: before the stream opens (more than one read
// batch), between Open and Serve, and while it serves.
func TestStreamSwitch(t *testing.T) {
	svc, b := newBroadcastEnv(t)
	local := principaltest.Principal("local")
	for i := range ReadBatch + 10 {
		ask(t, svc, local, fmt.Sprintf("job-%d", i%7))
	}
	st, err := b.Open(context.Background(), Request{Principal: local, Resume: true})
	require.NoError(t, err)
	defer st.Close()
	for i := range 5 {
		ask(t, svc, local, fmt.Sprintf("job-open-%d", i))
	}
	sink := newRecSink()
	serve(t, st, sink)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 40 {
			if _, _, err := svc.Questions.Create(auth.WithPrincipal(context.Background(), local), fmt.Sprintf("job-live-%d", i), textQ); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
	end := ask(t, svc, local, "job-end")
	got := seqs(sink.take(t, int(end)))
	want := make([]uint64, end)
	for i := range want {
		want[i] = uint64(i + 1)
	}
	require.Equal(t, want, got, "every event once, in order, across the switch")
	ask(t, svc, local, "job-after")
	require.Equal(t, end+1, sink.take(t, 1)[0].Seq, "nothing sent twice before the next event")
}

// gatedLog holds the broadcaster's reads that found events while armed,
// until released: a stream can open in the middle of a read.
type gatedLog struct {
	hitl.EventLog
	armed   chan struct{} // closed: hold the next read
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (l *gatedLog) Events(ctx context.Context, after uint64, limit int) ([]*hitl.Event, uint64, error) {
	evs, last, err := l.EventLog.Events(ctx, after, limit)
	if auth.PrincipalFrom(ctx).ID != reader.ID || last == after {
		return evs, last, err
	}
	select {
	case <-l.armed:
		l.once.Do(func() {
			close(l.entered)
			<-l.release
		})
	default:
	}
	return evs, last, err
}

// TestStreamOpenedDuringARead: a stream whose principal nobody had when
// the broadcaster read a change gets that change from the log itself,
// once.
func TestStreamOpenedDuringARead(t *testing.T) {
	svc, _ := newBroadcastEnv(t)
	base, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	log := &gatedLog{EventLog: svc.Log, armed: make(chan struct{}), entered: make(chan struct{}), release: make(chan struct{})}
	b := New(base, log, discard, encodeTest)
	local := principaltest.Principal("local")
	first, err := b.Open(context.Background(), Request{Principal: local})
	require.NoError(t, err)
	defer first.Close()
	start := first.Cursor()
	close(log.armed)
	seq := ask(t, svc, local, "job-1")
	select {
	case <-log.entered:
	case <-time.After(testDeadline):
		t.Fatal("the broadcaster did not read the change")
	}
	admin := principaltest.Principal("admin:ops")
	late, err := b.Open(context.Background(), Request{Principal: admin, Resume: true, After: start})
	require.NoError(t, err)
	defer late.Close()
	sink := newRecSink()
	serve(t, late, sink)
	close(log.release)
	require.Equal(t, []uint64{seq}, seqs(sink.take(t, 1)), "read from the log: the broadcaster did not read it for this principal")
	next := ask(t, svc, local, "job-2")
	got := sink.take(t, 1)
	require.Equal(t, next, got[0].Seq, "then live, with nothing twice")
	require.NotNil(t, got[0].B, "live frames come encoded by the broadcaster")
}

func TestStreamEnds(t *testing.T) {
	local := principaltest.Principal("local")
	t.Run("cancelling_the_request_ends_it_and_close_leaves", func(t *testing.T) {
		_, b := newBroadcastEnv(t)
		st, err := b.Open(context.Background(), Request{Principal: local})
		require.NoError(t, err)
		cancel, done := serve(t, st, newRecSink())
		cancel()
		require.NoError(t, served(t, done))
		require.Equal(t, 1, b.Count())
		st.Close()
		require.Equal(t, 0, b.Count())
	})
	t.Run("the_broadcaster_ending_ends_it", func(t *testing.T) {
		svc, _ := newBroadcastEnv(t)
		base, cancel := context.WithCancel(context.Background())
		b := New(base, svc.Log, discard, nil)
		st, err := b.Open(context.Background(), Request{Principal: local})
		require.NoError(t, err)
		defer st.Close()
		_, done := serve(t, st, newRecSink())
		cancel()
		require.NoError(t, served(t, done))
	})
	t.Run("a_stream_that_falls_behind_ends_with_ErrBehind", func(t *testing.T) {
		svc, b := newBroadcastEnv(t)
		st, err := b.Open(context.Background(), Request{Principal: local})
		require.NoError(t, err)
		defer st.Close()
		pace, err := b.Subscribe(context.Background(), local)
		require.NoError(t, err)
		defer b.Unsubscribe(pace)
		sink := newRecSink()
		sink.hold = make(chan struct{})
		_, done := serve(t, st, sink)
		// One change per batch: the pacing subscriber takes each before
		// the next, while the stream's sink holds its first.
		for i := range Backlog + 2 {
			seq := ask(t, svc, local, fmt.Sprintf("job-%d", i))
			for bt := nextBatch(t, pace); bt.To < seq; bt = nextBatch(t, pace) {
			}
		}
		select {
		case <-st.sub.Gone():
		case <-time.After(testDeadline):
			t.Fatal("the stream that stopped reading was not dropped")
		}
		close(sink.hold)
		require.ErrorIs(t, served(t, done), ErrBehind)
	})
	t.Run("a_failing_sink_ends_it_with_its_error", func(t *testing.T) {
		svc, b := newBroadcastEnv(t)
		st, err := b.Open(context.Background(), Request{Principal: local})
		require.NoError(t, err)
		defer st.Close()
		sink := newRecSink()
		sink.err = errors.New("the client went away")
		_, done := serve(t, st, sink)
		ask(t, svc, local, "job-1")
		require.ErrorIs(t, served(t, done), sink.err)
	})
	t.Run("a_failing_read_ends_it_with_the_logs_error", func(t *testing.T) {
		svc, _ := newBroadcastEnv(t)
		broken := errors.New("the disk is gone")
		b := New(context.Background(), &failingLog{EventLog: svc.Log, who: "local", err: broken}, discard, nil)
		ask(t, svc, local, "job-1")
		st, err := b.Open(context.Background(), Request{Principal: local, Resume: true})
		require.NoError(t, err)
		defer st.Close()
		_, done := serve(t, st, newRecSink())
		require.ErrorIs(t, served(t, done), broken)
	})
	t.Run("an_invalid_run_is_refused_before_subscribing", func(t *testing.T) {
		_, b := newBroadcastEnv(t)
		_, err := b.Open(context.Background(), Request{Principal: local, Run: "job id"})
		require.Equal(t, fault.EINVALID, fault.Code(err))
		require.Equal(t, 0, b.Count())
	})
}

// failingLog fails the reads made as the principal who.
type failingLog struct {
	hitl.EventLog
	who string
	err error
}

func (l *failingLog) Events(ctx context.Context, after uint64, limit int) ([]*hitl.Event, uint64, error) {
	if auth.PrincipalFrom(ctx).ID == l.who {
		return nil, after, l.err
	}
	return l.EventLog.Events(ctx, after, limit)
}

func TestStreamHeartbeat(t *testing.T) {
	local := principaltest.Principal("local")
	for _, every := range []time.Duration{0, 15 * time.Second} {
		t.Run(fmt.Sprintf("every_%s", every), func(t *testing.T) {
			_, b := newBroadcastEnv(t)
			ticks := make(chan time.Time)
			var period time.Duration
			stopped := make(chan struct{})
			b.ticker = func(d time.Duration) (<-chan time.Time, func()) {
				period = d
				return ticks, func() { close(stopped) }
			}
			st, err := b.Open(context.Background(), Request{Principal: local, Heartbeat: every})
			require.NoError(t, err)
			defer st.Close()
			sink := newRecSink()
			cancel, done := serve(t, st, sink)
			if every == 0 {
				select {
				case ticks <- time.Now():
					t.Fatal("a stream without a heartbeat took a tick")
				default:
				}
				cancel()
				require.NoError(t, served(t, done))
				require.Zero(t, period, "no ticker without a heartbeat")
				return
			}
			for range 2 {
				select {
				case ticks <- time.Now():
				case <-time.After(testDeadline):
					t.Fatal("the stream did not wait for its heartbeat")
				}
				select {
				case <-sink.beats:
				case <-time.After(testDeadline):
					t.Fatal("no beat after a tick")
				}
			}
			cancel()
			require.NoError(t, served(t, done))
			require.Equal(t, every, period)
			<-stopped
		})
	}
}
