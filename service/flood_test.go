package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/ratelimit"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// floodService has every flood limit at one request a minute (a burst of
// one) and two streams per principal.
func floodService(t *testing.T) (*service.Service, *clocktest.Clock, *memstore.Store) {
	t.Helper()
	clock := clocktest.New(t0)
	st := memstore.New()
	lim := func() hitl.Limiter { return ratelimit.New(1, 0, clock.Now) }
	svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clock, Limiter: ratelimit.New(1, 0, clock.Now), MaxStreams: 2,
		Limits: map[hitl.Limit]hitl.Limiter{hitl.LimitControl: lim(), hitl.LimitRuns: lim(), hitl.LimitPolicy: lim()}})
	return svc, clock, st
}

func eventCount(t *testing.T, st *memstore.Store) uint64 {
	t.Helper()
	n, err := st.LastSeq(context.Background())
	require.NoError(t, err)
	return n
}

// TestFloodsCostTheFlooder: past its limits a principal is refused before
// anything is stored, and 1,000 refusals add a handful of audit events,
// not 1,000.
func TestFloodsCostTheFlooder(t *testing.T) {
	ctx := auth.WithPrincipal(context.Background(), askCtl)
	floods := map[string]func(svc *service.Service, i int) error{
		"control requests": func(svc *service.Service, i int) error {
			_, err := svc.Runs.Control(ctx, steer.NewRequest("req-"+itoa(i), steer.CommandPause, "run-1", t0, steer.ControlPayload{}))
			return err
		},
		"STATE reports": func(svc *service.Service, i int) error {
			_, err := svc.Runs.Publish(ctx, steer.StateEvent{Event: steer.StateRunning, RunID: "run-1", Stack: []steer.StackEntry{{ID: "run-1", Iter: i}}})
			return err
		},
		"new runs": func(svc *service.Service, i int) error {
			_, err := svc.Runs.Checkpoint(ctx, steer.StateEvent{RunID: "run-" + itoa(i), Stack: []steer.StackEntry{{ID: "x", Iter: 1}}})
			return err
		},
		"questions": func(svc *service.Service, i int) error {
			_, _, err := svc.Questions.Create(ctx, "run-1", hitl.NewQuestion{Question: "Again?"})
			return err
		},
		"policy calls": func(svc *service.Service, i int) error {
			return svc.Guard.Throttle(ctx, hitl.LimitPolicy)
		},
		"asking in another's run": func(svc *service.Service, i int) error {
			_, _, err := svc.Questions.Create(auth.WithPrincipal(context.Background(), other), "owned", hitl.NewQuestion{Question: "Mine?"})
			return err
		},
	}
	for name, flood := range floods {
		t.Run(name, func(t *testing.T) {
			svc, clock, st := floodService(t)
			_, _, err := svc.Questions.Create(auth.WithPrincipal(context.Background(), asker), "owned", hitl.NewQuestion{Question: "Owner's?"})
			require.NoError(t, err)
			var first error
			for i := 0; first == nil && i < 10; i++ {
				first = flood(svc, i)
			}
			require.Error(t, first, "the limit bites")
			before := eventCount(t, st)
			for i := range 1000 {
				err := flood(svc, 1000+i)
				require.Error(t, err)
				code := fault.Code(err)
				require.Contains(t, []string{fault.ERATELIMITED, fault.EFORBIDDEN}, code, "%v", err)
				if code == fault.ERATELIMITED {
					var he *fault.Error
					require.ErrorAs(t, err, &he)
					assert.Positive(t, he.RetryAfter, "the refusal says when to retry")
				}
			}
			added := eventCount(t, st) - before
			assert.LessOrEqual(t, added, uint64(6), "1,000 refusals add at most a handful of events")

			// The next minute's first refusal carries the count of those
			// not recorded one by one.
			clock.Add(time.Minute) // the limit refills one request, then bites again
			err = nil
			for i := 0; err == nil && i < 3; i++ {
				err = flood(svc, 5000+i)
			}
			require.Error(t, err)
			evs, _, err := svc.Log.Events(auth.WithPrincipal(context.Background(), admin), 0, 0)
			require.NoError(t, err)
			last := evs[len(evs)-1]
			require.Equal(t, hitl.EventRefused, last.Type)
			total := 0
			for _, ev := range evs {
				if ev.Type == hitl.EventRefused {
					total += max(ev.Count, 1)
				}
			}
			assert.GreaterOrEqual(t, total, 1001, "every refusal is counted in the audit")
		})
	}
}

// TestStreamsPerPrincipal: each principal holds at most MaxStreams streams
// at once; the next is refused with too_many_streams and a Retry-After,
// others are not affected, and a released stream frees a place.
func TestStreamsPerPrincipal(t *testing.T) {
	svc, _, st := floodService(t)
	ctx := auth.WithPrincipal(context.Background(), asker)
	r1, err := svc.Guard.OpenStream(ctx)
	require.NoError(t, err)
	r2, err := svc.Guard.OpenStream(ctx)
	require.NoError(t, err)
	before := eventCount(t, st)
	for range 1000 {
		_, err = svc.Guard.OpenStream(ctx)
		require.Equal(t, fault.ETOOMANYSTREAMS, fault.Code(err))
	}
	var he *fault.Error
	require.ErrorAs(t, err, &he)
	assert.Positive(t, he.RetryAfter)
	assert.LessOrEqual(t, eventCount(t, st)-before, uint64(6), "refused streams add a handful of events")
	_, err = svc.Guard.OpenStream(auth.WithPrincipal(context.Background(), other))
	require.NoError(t, err, "another principal has its own bound")
	r1()
	r1() // releasing twice gives back one place
	r3, err := svc.Guard.OpenStream(ctx)
	require.NoError(t, err)
	_, err = svc.Guard.OpenStream(ctx)
	require.Equal(t, fault.ETOOMANYSTREAMS, fault.Code(err))
	r2()
	r3()
}

func itoa(i int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		if i /= 10; i == 0 {
			return string(b)
		}
	}
}

// TestFlushRefusals: the count of a flood that stopped reaches the audit
// log at the next sweep after its minute, as one event; an idle service
// writes nothing.
func TestFlushRefusals(t *testing.T) {
	svc, clock, st := floodService(t)
	ctx := auth.WithPrincipal(context.Background(), other)
	require.NoError(t, svc.Guard.Throttle(ctx, hitl.LimitPolicy)) // the one a minute allowed
	for range 100 {
		require.Error(t, svc.Guard.Throttle(ctx, hitl.LimitPolicy))
	}
	before := eventCount(t, st)
	require.NoError(t, svc.Guard.FlushRefusals(context.Background()))
	assert.Equal(t, before, eventCount(t, st), "the minute is not over")
	clock.Add(time.Minute)
	require.NoError(t, svc.Guard.FlushRefusals(context.Background()))
	evs, _, err := svc.Log.Events(auth.WithPrincipal(context.Background(), admin), before, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1, "one summary for the suppressed policy refusals")
	assert.Equal(t, hitl.EventRefused, evs[0].Type)
	assert.Equal(t, 95, evs[0].Count, "100 refused, 5 recorded one by one")
	assert.Contains(t, evs[0].Reason, "not recorded one by one")
	clock.Add(time.Minute)
	require.NoError(t, svc.Guard.FlushRefusals(context.Background()))
	assert.Equal(t, before+1, eventCount(t, st), "idle: nothing more")
}
