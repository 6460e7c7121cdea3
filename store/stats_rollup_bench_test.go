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
	"github.com/stretchr/testify/require"
)

// BenchmarkStatsRollups is hitl stats --since 24h as hitl serve computes
// it (Service.Stats delegating to observe over bbolt's rollups) at 100
// and 100,000 questions asked and settled in the window, spread over all
// of it, at a time that is not on a minute (so the window's first, ragged
// minute is read from its questions): the cost follows the window's
// hours, not its questions (docs/benchmarks.md).
func BenchmarkStatsRollups(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		b.Run(fmt.Sprintf("settled=%d", n), func(b *testing.B) {
			now := time.Date(2026, 11, 24, 12, 0, 27, 500_000_000, time.UTC)
			clock := clocktest.New(now.Add(-24*time.Hour + time.Second))
			db, err := Open(filepath.Join(b.TempDir(), "hitl.db"))
			require.NoError(b, err)
			defer db.Close()
			db.bolt.NoSync = true // the fill only: the measured reads write nothing
			svc := hitl.NewService(db, hitl.ServiceConfig{Notifier: notify.New(), Clock: clock, StatsWindow: observe.New(db)})
			agent := principaltest.As(context.Background(), "api:agent")
			person := principaltest.As(context.Background(), "admin:ops")
			step := (24*time.Hour - 2*time.Second) / time.Duration(n+1)
			for i := range n {
				q, _, err := svc.Create(agent, fmt.Sprintf("run-%d", i%200), benchQuestion)
				require.NoError(b, err)
				clock.Add(step * time.Duration(1+i%3) / 2) // answered after 0.5 to 1.5 steps
				_, err = svc.Answer(person, q.ID, hitl.Response{Value: "deploy"})
				require.NoError(b, err)
				clock.Add(step - step*time.Duration(1+i%3)/2)
			}
			clock.Add(now.Sub(clock.Now()))
			db.bolt.NoSync = false
			ctx := principaltest.As(context.Background(), "admin:ops")
			st, err := svc.Stats(ctx, hitl.StatsQuery{Since: 24 * time.Hour})
			require.NoError(b, err)
			require.Equal(b, n, st.Answered)
			require.Equal(b, n, st.Asked)
			// The same window from the questions (the service without
			// rollups), once, for comparison.
			exact := hitl.NewService(db, hitl.ServiceConfig{Notifier: notify.New(), Clock: clock})
			want, err := exact.Stats(ctx, hitl.StatsQuery{Since: 24 * time.Hour})
			require.NoError(b, err)
			require.Equal(b, want.Asked, st.Asked)
			require.Equal(b, want.QuestionsPerRun, st.QuestionsPerRun)
			measure := func(svc *hitl.Service) func(*testing.B) {
				return func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := svc.Stats(ctx, hitl.StatsQuery{Since: 24 * time.Hour}); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			// Repeats share the fill (minutes at 100,000): min / median / max
			// over them.
			for i := range 5 {
				b.Run(fmt.Sprintf("rollups/repeat=%d", i+1), measure(svc))
			}
			b.Run("questions", measure(exact))
		})
	}
}
