package client

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBackoff(t *testing.T) {
	t.Run("doubles_up_to_the_cap_with_jitter", func(t *testing.T) {
		b := backoff{min: 100 * time.Millisecond, max: time.Second}
		want := []time.Duration{100, 200, 400, 800, 1000, 1000}
		for _, w := range want {
			d := b.next()
			w *= time.Millisecond
			require.LessOrEqual(t, d, w)
			require.GreaterOrEqual(t, d, w*3/4)
		}
		b.reset()
		require.LessOrEqual(t, b.next(), 100*time.Millisecond)
	})
}
