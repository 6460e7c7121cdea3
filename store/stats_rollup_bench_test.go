package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/require"
)

// BenchmarkStatsRollups is hitl stats --since 24h as hitl serve computes
// it (Service.Stats delegating to observe over bbolt's rollups) at 100
// and 100,000 questions asked and settled in the window, spread over all
// of it, at a time that is not on a minute (the window starts at its
// minute: 59 minute rollups, then 24 hour rollups). The cost follows the
// window's hours, not its questions (docs/benchmarks.md#stats-from-rollups).
//
// Both stores are filled once (minutes at 100,000). settled=N measures
// each alone; ratio alternates them in one loop (a noisy machine slows
// both alike) and reports big ÷ small, five times; questions reads the
// big window from its questions (the service without rollups) once, for
// comparison.
func BenchmarkStatsRollups(b *testing.B) {
	now := time.Date(2026, 11, 24, 12, 1, 27, 500_000_000, time.UTC)
	ctx := principaltest.As(context.Background(), "admin:ops")
	fill := func(n int) (*service.Service, *service.Service) {
		clock := clocktest.New(now.Add(-24*time.Hour + time.Second))
		db, err := Open(filepath.Join(b.TempDir(), "hitl.db"))
		require.NoError(b, err)
		b.Cleanup(func() { _ = db.Close() })
		db.bolt.NoSync = true // the fill only: the measured reads write nothing
		svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New(), Clock: clock, StatsWindow: observe.New(db)})
		agent := principaltest.As(context.Background(), "api:agent")
		person := principaltest.As(context.Background(), "admin:ops")
		step := (24*time.Hour - 2*time.Second) / time.Duration(n+1)
		for i := range n {
			q, _, err := svc.Questions.Create(agent, fmt.Sprintf("run-%d", i%200), benchQuestion)
			require.NoError(b, err)
			wait := step * time.Duration(1+i%3) / 2 // answered after 0.5 to 1.5 steps
			clock.Add(wait)
			_, err = svc.Questions.Answer(person, q.ID, hitl.Response{Value: "deploy"})
			require.NoError(b, err)
			clock.Add(step - wait)
		}
		clock.Add(now.Sub(clock.Now()))
		db.bolt.NoSync = false
		exact := service.NewService(db, service.ServiceConfig{Notifier: notify.New(), Clock: clock})
		st, err := svc.Observation.Stats(ctx, observe.StatsQuery{Since: 24 * time.Hour})
		require.NoError(b, err)
		want, err := exact.Observation.Stats(ctx, observe.StatsQuery{Since: now.Sub(st.Since)})
		require.NoError(b, err)
		require.Equal(b, n, st.Answered)
		require.Equal(b, n, st.Asked)
		require.Equal(b, want.QuestionsPerRun, st.QuestionsPerRun)
		return svc, exact
	}
	stats := func(b *testing.B, svc *service.Service) {
		if _, err := svc.Observation.Stats(ctx, observe.StatsQuery{Since: 24 * time.Hour}); err != nil {
			b.Fatal(err)
		}
	}
	small, _ := fill(100)
	big, bigExact := fill(100_000)
	for _, c := range []struct {
		name string
		svc  *service.Service
	}{{"settled=100", small}, {"settled=100000", big}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				stats(b, c.svc)
			}
		})
	}
	for i := range 5 {
		b.Run(fmt.Sprintf("ratio/repeat=%d", i+1), func(b *testing.B) {
			var smallT, bigT time.Duration
			for b.Loop() {
				t := time.Now()
				stats(b, small)
				smallT += time.Since(t)
				t = time.Now()
				stats(b, big)
				bigT += time.Since(t)
			}
			b.ReportMetric(float64(smallT.Microseconds())/float64(b.N), "small-µs/op")
			b.ReportMetric(float64(bigT.Microseconds())/float64(b.N), "big-µs/op")
			b.ReportMetric(float64(bigT)/float64(smallT), "ratio")
		})
	}
	b.Run("questions/settled=100000", func(b *testing.B) {
		for b.Loop() {
			stats(b, bigExact)
		}
	})
}
