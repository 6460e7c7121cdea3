package slack

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

type manualNow struct{ t time.Time }

func (m *manualNow) now() time.Time { return m.t }

func TestPacer(t *testing.T) {
	clock := &manualNow{t0}
	p := newPacer(time.Second)
	p.now = clock.now
	t.Run("the first write to a target goes at once", func(t *testing.T) {
		assert.Zero(t, p.delay("C1"))
	})
	t.Run("the next write waits an interval after the last one ended", func(t *testing.T) {
		p.took("C1")
		assert.Equal(t, time.Second, p.delay("C1"))
		clock.t = clock.t.Add(400 * time.Millisecond)
		assert.Equal(t, 600*time.Millisecond, p.delay("C1"))
	})
	t.Run("another target does not wait behind it", func(t *testing.T) {
		assert.Zero(t, p.delay("C2"))
	})
	t.Run("a target is forgotten only once its pace is back to full", func(t *testing.T) {
		p.forget("C1")
		assert.Equal(t, 2, p.size(), "C1 still owes part of an interval")
		clock.t = clock.t.Add(time.Second)
		p.forget("C1")
		assert.Equal(t, 1, p.size())
		assert.Zero(t, p.delay("C1"), "after a quiet interval, at once again")
	})
}

func TestBackoff(t *testing.T) {
	clock := &manualNow{t0}
	b := newBackoff(time.Second, 4*time.Second)
	b.now = clock.now
	t.Run("failures double the shared wait up to the bound", func(t *testing.T) {
		var got []time.Duration
		for range 4 {
			got = append(got, b.failed())
			clock.t = clock.t.Add(got[len(got)-1])
		}
		assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}, got)
	})
	t.Run("every worker sees the same pause", func(t *testing.T) {
		b.failed()
		clock.t = clock.t.Add(time.Second)
		assert.Equal(t, 3*time.Second, b.pause())
	})
	t.Run("a success starts the doubling over", func(t *testing.T) {
		b.succeeded()
		clock.t = clock.t.Add(time.Hour)
		assert.Equal(t, time.Second, b.failed())
	})
}
