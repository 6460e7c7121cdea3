package eventstream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/require"
)

const testDeadline = 10 * time.Second

var (
	textQ   = hitl.NewQuestion{Question: "What's the deadline?"}
	discard = slog.New(slog.NewTextHandler(io.Discard, nil))
)

// encodeTest stands for an edge's encoding: the event's JSON.
func encodeTest(ev *hitl.Event) ([]byte, error) { return json.Marshal(ev) }

// newBroadcastEnv is a broadcaster over a service on an in-memory store.
func newBroadcastEnv(t *testing.T) (*service.Service, *Broadcaster) {
	t.Helper()
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New()})
	base, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return svc, New(base, svc.Log, discard, encodeTest)
}

// nextBatch waits for sub's next batch.
func nextBatch(t *testing.T, sub *Subscriber) Batch {
	t.Helper()
	select {
	case bt := <-sub.ch:
		return bt
	case <-sub.gone:
		t.Fatal("the subscriber was dropped")
	case <-time.After(testDeadline):
		t.Fatal("timed out waiting for a batch")
	}
	return Batch{}
}

func TestBroadcaster(t *testing.T) {
	asker := principaltest.As(context.Background(), "api:test")
	t.Run("every_one_of_1000_subscribers_receives_the_event", func(t *testing.T) {
		svc, b := newBroadcastEnv(t)
		_, _, err := svc.Questions.Create(asker, "job-old", textQ)
		require.NoError(t, err)
		who := []string{"api:test", "slack:U024BE7LH", "local"}
		subs := make([]*Subscriber, 1000)
		for i := range subs {
			subs[i], err = b.Subscribe(context.Background(), principaltest.Principal(who[i%len(who)]))
			require.NoError(t, err)
			require.Equal(t, uint64(1), subs[i].start, "subscribers start at the end of the log")
		}
		q, _, err := svc.Questions.Create(asker, "job-1", textQ)
		require.NoError(t, err)
		for i, sub := range subs {
			bt := nextBatch(t, sub)
			require.True(t, bt.Read, "subscriber %d", i)
			require.Equal(t, uint64(1), bt.From)
			require.Equal(t, uint64(2), bt.To)
			require.Len(t, bt.Frames, 1, "subscriber %d", i)
			require.Contains(t, string(bt.Frames[0].B), q.ID)
			require.Equal(t, q.ID, bt.Frames[0].Event.QuestionID, "the event itself comes with its encoding")
		}
	})
	t.Run("ask_only_subscriber_receives_only_its_own_events", func(t *testing.T) {
		svc, b := newBroadcastEnv(t)
		ci, err := b.Subscribe(context.Background(), auth.TokenPrincipal("ci", []auth.Scope{auth.ScopeAsk}, ""))
		require.NoError(t, err)
		answerer, err := b.Subscribe(context.Background(), principaltest.Principal("slack:U024BE7LH"))
		require.NoError(t, err)
		other, _, err := svc.Questions.Create(asker, "job-1", textQ)
		require.NoError(t, err)
		require.Len(t, nextBatch(t, answerer).Frames, 1)
		bt := nextBatch(t, ci)
		require.True(t, bt.Read)
		require.Empty(t, bt.Frames, "api:ci may not see %s", other.ID)
	})
	t.Run("subscriber_that_stops_reading_is_dropped_and_others_go_on", func(t *testing.T) {
		svc, b := newBroadcastEnv(t)
		slow, err := b.Subscribe(context.Background(), principaltest.Principal("local"))
		require.NoError(t, err)
		fast, err := b.Subscribe(context.Background(), principaltest.Principal("local"))
		require.NoError(t, err)
		for i := range Backlog + 1 {
			_, _, err := svc.Questions.Create(asker, fmt.Sprintf("job-%d", i), textQ)
			require.NoError(t, err)
			for bt := nextBatch(t, fast); bt.To < uint64(i+1); bt = nextBatch(t, fast) {
			}
		}
		select {
		case <-slow.gone:
		case <-time.After(testDeadline):
			t.Fatal("the subscriber that stopped reading was not dropped")
		}
		_, _, err = svc.Questions.Create(asker, "job-after", textQ)
		require.NoError(t, err)
		require.Contains(t, string(nextBatch(t, fast).Frames[0].B), "job-after")
	})
	t.Run("one_read_per_change_serves_every_principal", func(t *testing.T) {
		svc, _ := newBroadcastEnv(t)
		base, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		log := &countingLog{EventLog: svc.Log}
		b := New(base, log, discard, encodeTest)
		var subs []*Subscriber
		for i := range 50 {
			sub, err := b.Subscribe(context.Background(), auth.TokenPrincipal(fmt.Sprintf("person%d", i), []auth.Scope{auth.ScopeAnswer}, ""))
			require.NoError(t, err)
			subs = append(subs, sub)
		}
		mine, err := b.Subscribe(context.Background(), auth.TokenPrincipal("test", []auth.Scope{auth.ScopeAsk}, ""))
		require.NoError(t, err)
		other, err := b.Subscribe(context.Background(), auth.TokenPrincipal("other", []auth.Scope{auth.ScopeAsk}, ""))
		require.NoError(t, err)
		q, _, err := svc.Questions.Create(asker, "job-1", textQ)
		require.NoError(t, err)
		for _, sub := range subs {
			bt := nextBatch(t, sub)
			require.Len(t, bt.Frames, 1)
			require.Equal(t, q.ID, bt.Frames[0].Event.QuestionID)
		}
		require.Len(t, nextBatch(t, mine).Frames, 1, "the asker sees its own question")
		bt := nextBatch(t, other)
		require.True(t, bt.Read)
		require.Empty(t, bt.Frames, "another asker does not")
		require.Equal(t, int64(1), log.reads.Load(), "one read of the change for 52 streams of 52 principals")
	})
	t.Run("the_reader_ends_when_nobody_listens_and_starts_again", func(t *testing.T) {
		svc, b := newBroadcastEnv(t)
		sub, err := b.Subscribe(context.Background(), principaltest.Principal("local"))
		require.NoError(t, err)
		b.Unsubscribe(sub)
		_, _, err = svc.Questions.Create(asker, "job-1", textQ) // wakes the reader, which finds nobody
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			b.mu.Lock()
			defer b.mu.Unlock()
			return !b.running
		}, testDeadline, time.Millisecond, "the reader ended")
		again, err := b.Subscribe(context.Background(), principaltest.Principal("local"))
		require.NoError(t, err)
		_, _, err = svc.Questions.Create(asker, "job-2", textQ)
		require.NoError(t, err)
		bt := nextBatch(t, again)
		require.True(t, bt.Read)
		require.Equal(t, "job-2", bt.Frames[len(bt.Frames)-1].RunID)
	})
	t.Run("subscriber_after_everyone_left_gets_later_events", func(t *testing.T) {
		svc, b := newBroadcastEnv(t)
		first, err := b.Subscribe(context.Background(), principaltest.Principal("local"))
		require.NoError(t, err)
		b.Unsubscribe(first)
		for range 3 {
			_, _, err := svc.Questions.Create(asker, "job-1", textQ)
			require.NoError(t, err)
		}
		second, err := b.Subscribe(context.Background(), principaltest.Principal("local"))
		require.NoError(t, err)
		_, _, err = svc.Questions.Create(asker, "job-2", textQ)
		require.NoError(t, err)
		for bt := nextBatch(t, second); ; bt = nextBatch(t, second) {
			if bt.To == 4 {
				require.True(t, bt.Read)
				require.True(t, strings.Contains(string(bt.Frames[len(bt.Frames)-1].B), `"jobId":"job-2"`))
				return
			}
		}
	})
}

// countingLog counts the batch reads of a log that found events.
type countingLog struct {
	hitl.EventLog
	reads atomic.Int64
}

func (l *countingLog) Events(ctx context.Context, after uint64, limit int) ([]*hitl.Event, uint64, error) {
	evs, last, err := l.EventLog.Events(ctx, after, limit)
	if limit == ReadBatch && last > after {
		l.reads.Add(1)
	}
	return evs, last, err
}

// seqLog is an event log of events 1..n that counts its reads.
type seqLog struct {
	n     uint64
	reads int
}

var _ hitl.EventLog = (*seqLog)(nil)

func (l *seqLog) Events(_ context.Context, after uint64, limit int) ([]*hitl.Event, uint64, error) {
	l.reads++
	var out []*hitl.Event
	for s := after + 1; s <= l.n && len(out) < limit; s++ {
		out = append(out, &hitl.Event{Seq: s})
	}
	if len(out) == 0 {
		return nil, after, nil
	}
	return out, out[len(out)-1].Seq, nil
}

func (l *seqLog) RunEvents(context.Context, string, uint64, int) ([]*hitl.Event, uint64, error) {
	return nil, l.n, nil
}

func (l *seqLog) Changed() <-chan struct{} { return make(chan struct{}) }

func TestEndOfLog(t *testing.T) {
	for _, n := range []uint64{0, 1, 2, 3, 7, 1000, 1025, 1 << 20} {
		for _, from := range []uint64{0, n / 2, n} {
			t.Run(fmt.Sprintf("finds_%d_from_%d", n, from), func(t *testing.T) {
				l := &seqLog{n: n}
				end, err := EndOfLog(context.Background(), l, from)
				require.NoError(t, err)
				require.Equal(t, n, end)
				if from == n {
					require.Equal(t, 1, l.reads, "nothing after from is one read")
				}
				require.LessOrEqual(t, l.reads, 2*64)
			})
		}
	}
}
