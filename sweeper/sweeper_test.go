package sweeper_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hitlbot/hitl/sweeper"
	"github.com/stretchr/testify/require"
)

func TestSweeper(t *testing.T) {
	t.Run("sweeps at start and then on schedule", func(t *testing.T) {
		calls := make(chan struct{}, 10)
		s, err := sweeper.Start("@every 1s", func(context.Context) (int, error) {
			calls <- struct{}{}
			return 0, nil
		}, slog.New(slog.NewTextHandler(io.Discard, nil)))
		require.NoError(t, err)
		defer s.Stop()
		for i := range 2 {
			select {
			case <-calls:
			case <-time.After(5 * time.Second):
				t.Fatalf("sweep %d did not run", i+1)
			}
		}
	})
	t.Run("bad schedule is refused", func(t *testing.T) {
		_, err := sweeper.Start("whenever", func(context.Context) (int, error) { return 0, nil }, slog.Default())
		require.Error(t, err)
	})
}
