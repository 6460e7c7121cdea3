package web

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hitlbot/hitl/steer"
)

// TestIteration: the console writes a run's iteration as steer says it,
// shorter: "3/10", "3" with no planned count, "–" before the first.
func TestIteration(t *testing.T) {
	for want, c := range map[string]steer.RunControl{
		"–":    {},
		"3/10": {Iter: 3, Max: 10},
		"3":    {Iter: 3},
	} {
		assert.Equal(t, want, iteration(c), "%+v", c)
	}
}
