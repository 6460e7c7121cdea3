package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
)

// BenchmarkSeeEnvelope records Socket Mode envelopes as the Slack bot does
// before it handles one (an envelope id and an event id, one commit),
// on PostgreSQL and on a bbolt file in the same run: what the shared
// dedup adds to each envelope's ack.
func BenchmarkSeeEnvelope(b *testing.B) {
	ctx := context.Background()
	pg, bolt := pgAndBolt(b)
	t0 := time.Now()
	per := func(st hitl.Store) time.Duration {
		start := time.Now()
		for i := range b.N {
			seen, err := st.SeeEnvelope(ctx, t0.Add(time.Duration(i)*time.Millisecond), hitl.EnvelopeWindow,
				fmt.Sprintf("env:%d", i), fmt.Sprintf("evt:%d", i))
			if err != nil || seen {
				b.Fatal(seen, err)
			}
		}
		return time.Since(start) / time.Duration(b.N)
	}
	b.ResetTimer()
	p, o := per(pg), per(bolt)
	b.ReportMetric(float64(p.Microseconds()), "pg-µs/envelope")
	b.ReportMetric(float64(o.Microseconds()), "bbolt-µs/envelope")
}
