package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/stretchr/testify/require"
)

// newBroadcastEnv is a broadcaster over a service on an in-memory store.
func newBroadcastEnv(t *testing.T) (*hitl.Service, *broadcaster) {
	t.Helper()
	svc := hitl.NewService(memstore.New(), hitl.ServiceConfig{Notifier: notify.New()})
	base, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return svc, newBroadcaster(base, svc, discard)
}

// nextBatch waits for sub's next batch.
func nextBatch(t *testing.T, sub *subscriber) batch {
	t.Helper()
	select {
	case bt := <-sub.ch:
		return bt
	case <-sub.gone:
		t.Fatal("the subscriber was dropped")
	case <-time.After(testDeadline):
		t.Fatal("timed out waiting for a batch")
	}
	return batch{}
}

func TestBroadcaster(t *testing.T) {
	asker := principaltest.As(context.Background(), "api:test")
	t.Run("every_one_of_1000_subscribers_receives_the_event_read_once_per_principal", func(t *testing.T) {
		svc, b := newBroadcastEnv(t)
		_, _, err := svc.Create(asker, "job-old", textQ)
		require.NoError(t, err)
		who := []string{"api:test", "slack:U024BE7LH", "local"}
		subs := make([]*subscriber, 1000)
		for i := range subs {
			subs[i], err = b.subscribe(context.Background(), principaltest.Principal(who[i%len(who)]))
			require.NoError(t, err)
			require.Equal(t, uint64(1), subs[i].start, "subscribers start at the end of the log")
		}
		q, _, err := svc.Create(asker, "job-1", textQ)
		require.NoError(t, err)
		for i, sub := range subs {
			bt := nextBatch(t, sub)
			require.True(t, bt.read, "subscriber %d", i)
			require.Equal(t, uint64(1), bt.from)
			require.Equal(t, uint64(2), bt.to)
			require.Len(t, bt.frames, 1, "subscriber %d", i)
			require.Contains(t, string(bt.frames[0].b), q.ID)
			require.Contains(t, string(bt.frames[0].b), "event: status\n")
		}
	})
	t.Run("ask_only_subscriber_receives_only_its_own_events", func(t *testing.T) {
		svc, b := newBroadcastEnv(t)
		ci, err := b.subscribe(context.Background(), hitl.TokenPrincipal("ci", []hitl.Scope{hitl.ScopeAsk}, ""))
		require.NoError(t, err)
		answerer, err := b.subscribe(context.Background(), principaltest.Principal("slack:U024BE7LH"))
		require.NoError(t, err)
		other, _, err := svc.Create(asker, "job-1", textQ)
		require.NoError(t, err)
		require.Len(t, nextBatch(t, answerer).frames, 1)
		bt := nextBatch(t, ci)
		require.True(t, bt.read)
		require.Empty(t, bt.frames, "api:ci may not see %s", other.ID)
	})
	t.Run("subscriber_that_stops_reading_is_dropped_and_others_go_on", func(t *testing.T) {
		svc, b := newBroadcastEnv(t)
		slow, err := b.subscribe(context.Background(), principaltest.Principal("local"))
		require.NoError(t, err)
		fast, err := b.subscribe(context.Background(), principaltest.Principal("local"))
		require.NoError(t, err)
		for i := range streamBacklog + 1 {
			_, _, err := svc.Create(asker, fmt.Sprintf("job-%d", i), textQ)
			require.NoError(t, err)
			for bt := nextBatch(t, fast); bt.to < uint64(i+1); bt = nextBatch(t, fast) {
			}
		}
		select {
		case <-slow.gone:
		case <-time.After(testDeadline):
			t.Fatal("the subscriber that stopped reading was not dropped")
		}
		_, _, err = svc.Create(asker, "job-after", textQ)
		require.NoError(t, err)
		require.Contains(t, string(nextBatch(t, fast).frames[0].b), "job-after")
	})
	t.Run("subscriber_after_everyone_left_gets_later_events", func(t *testing.T) {
		svc, b := newBroadcastEnv(t)
		first, err := b.subscribe(context.Background(), principaltest.Principal("local"))
		require.NoError(t, err)
		b.unsubscribe(first)
		for range 3 {
			_, _, err := svc.Create(asker, "job-1", textQ)
			require.NoError(t, err)
		}
		second, err := b.subscribe(context.Background(), principaltest.Principal("local"))
		require.NoError(t, err)
		_, _, err = svc.Create(asker, "job-2", textQ)
		require.NoError(t, err)
		for bt := nextBatch(t, second); ; bt = nextBatch(t, second) {
			if bt.to == 4 {
				require.True(t, bt.read)
				require.True(t, strings.Contains(string(bt.frames[len(bt.frames)-1].b), `"jobId":"job-2"`))
				return
			}
		}
	})
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
				end, err := endOfLog(context.Background(), l, from)
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
