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

// BenchmarkStats is hitl stats --since 24h (Service.Stats over bbolt) at
// 1,000 and 100,000 questions settled in the window, and at 100,000
// settled of which 1,000 in the window: the cost follows what the window
// holds, not the history stored.
func BenchmarkStats(b *testing.B) {
	for _, c := range []struct {
		name          string
		old, inWindow int
	}{
		{"settled=1000", 0, 1000},
		{"settled=100000", 0, 100_000},
		{"settled=100000,in_window=1000", 99_000, 1000},
	} {
		b.Run(c.name, func(b *testing.B) {
			now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
			clock := clocktest.New(now.Add(-72 * time.Hour))
			db, err := Open(filepath.Join(b.TempDir(), "hitl.db"))
			require.NoError(b, err)
			defer db.Close()
			db.bolt.NoSync = true // the fill only: the measured reads write nothing
			svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New(), Clock: clock})
			agent := principaltest.As(context.Background(), "api:agent")
			person := principaltest.As(context.Background(), "admin:ops")
			fill := func(n int, span time.Duration) {
				step := span / time.Duration(n+1)
				for i := range n {
					q, _, err := svc.Questions.Create(agent, fmt.Sprintf("run-%d", i%200), benchQuestion)
					require.NoError(b, err)
					clock.Add(step)
					_, err = svc.Questions.Answer(person, q.ID, hitl.Response{Value: "deploy"})
					require.NoError(b, err)
				}
			}
			fill(c.old, 47*time.Hour) // settled 25 to 72 hours ago
			clock.Add(now.Add(-23 * time.Hour).Sub(clock.Now()))
			fill(c.inWindow, 22*time.Hour) // settled in the last 23 hours
			clock.Add(now.Sub(clock.Now()))
			db.bolt.NoSync = false
			ctx := principaltest.As(context.Background(), "admin:ops")
			st, err := svc.Observation.Stats(ctx, observe.StatsQuery{Since: 24 * time.Hour})
			require.NoError(b, err)
			require.Equal(b, c.inWindow, st.Answered)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := svc.Observation.Stats(ctx, observe.StatsQuery{Since: 24 * time.Hour}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
