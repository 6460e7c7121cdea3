package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl/internal/pgtest"
)

// manualNow is a clock the test moves.
type manualNow struct{ t time.Time }

func (m *manualNow) now() time.Time { return m.t }

// Two replicas' limiters share their buckets: what one took, the other
// cannot take again.
func TestLimiterHoldsAcrossReplicas(t *testing.T) {
	url := pgtest.DB(t)
	a, b := openDB(t, url), openDB(t, url)
	clock := &manualNow{time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)}
	// 6 a minute: a burst of one, a token every ten seconds.
	la, lb := a.Limiter("q", 6, 0, clock.now), b.Limiter("q", 6, 0, clock.now)
	if d := la.Allow("api:x", "r1"); d != 0 {
		t.Fatalf("first take on a: wait %s", d)
	}
	if d := lb.Allow("api:x", "r2"); d < 9*time.Second || d > 10*time.Second {
		t.Fatalf("b right after a took the one token: wait %s, want about 10s", d)
	}
	if d := lb.Allow("api:y", "r2"); d != 0 {
		t.Fatalf("another principal on b: wait %s", d)
	}
	clock.t = clock.t.Add(10 * time.Second)
	if d := lb.Allow("api:x", "r2"); d != 0 {
		t.Fatalf("b ten seconds later: wait %s", d)
	}
	t.Run("each limit has its own buckets", func(t *testing.T) {
		if d := a.Limiter("control", 6, 0, clock.now).Allow("api:x", "r1"); d != 0 {
			t.Fatalf("another limit's bucket: wait %s", d)
		}
	})
	t.Run("a refused take charges neither bucket", func(t *testing.T) {
		// 60 a minute per principal (a burst of ten), 6 per run (one).
		l := a.Limiter("both", 60, 6, clock.now)
		if d := l.Allow("api:z", "run-1"); d != 0 {
			t.Fatalf("first: wait %s", d)
		}
		for i := range 20 {
			if d := l.Allow("api:z", "run-1"); d == 0 {
				t.Fatalf("take %d in run-1: allowed past the run's limit", i)
			}
		}
		for i := range 9 {
			if d := b.Limiter("both", 60, 6, clock.now).Allow("api:z", "run-other-"+string(rune('a'+i))); d != 0 {
				t.Fatalf("take %d of the principal's burst: wait %s (the refused ones charged it)", i+2, d)
			}
		}
		if d := l.Allow("api:z", "run-last"); d == 0 {
			t.Fatal("the principal's burst of ten is spent")
		}
	})
	t.Run("idle buckets are deleted as others are taken", func(t *testing.T) {
		clock.t = clock.t.Add(limiterIdle + time.Minute)
		for i := range 20 {
			la.Allow("api:new", "r"+string(rune('a'+i)))
			clock.t = clock.t.Add(10 * time.Second)
		}
		var old int
		if err := a.pool.QueryRow(context.Background(), `SELECT count(*) FROM rate_buckets WHERE at_ns < $1`, ns(clock.t.Add(-limiterIdle-time.Hour))).Scan(&old); err != nil {
			t.Fatal(err)
		}
		if old != 0 {
			t.Fatalf("%d idle buckets left", old)
		}
	})
}
