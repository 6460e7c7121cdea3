package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/service"
	"github.com/jackc/pgx/v5"
)

// BenchmarkWakeAcrossReplicas: an agent waits (Service.Wait) on replica A
// for a question a person answers on replica B; the time is from the
// answer's call to the agent's return. Its floor, measured in the same
// run: one committed INSERT with a NOTIFY on one connection until another
// connection, LISTENing, receives it. Both leave out HTTP (the loopback
// round trips are the same either way).
func BenchmarkWakeAcrossReplicas(b *testing.B) {
	ctx := context.Background()
	url := pgtest.DB(b)
	replica := func() (*service.Service, *DB) {
		db, err := Open(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		n, err := NewNotifier(ctx, db, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { n.Close(); _ = db.Close() })
		return service.NewService(db, service.ServiceConfig{Notifier: n}), db
	}
	a, db := replica()
	bSvc, _ := replica()
	agent := auth.WithPrincipal(ctx, auth.TokenPrincipal("agent", nil, ""))
	person := auth.WithPrincipal(ctx, auth.TokenPrincipal("person", []auth.Scope{auth.ScopeAdmin}, ""))

	wake := func() time.Duration {
		q, _, err := a.Questions.Create(agent, "run-wake", hitl.NewQuestion{Question: "Go?"})
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan time.Time, 1)
		watching := make(chan struct{})
		go func() {
			close(watching)
			if _, err := a.Questions.Wait(agent, q.ID); err != nil {
				b.Error(err)
			}
			done <- time.Now()
		}()
		<-watching
		start := time.Now()
		if _, err := bSvc.Questions.Answer(person, q.ID, hitl.Response{Value: "yes"}); err != nil {
			b.Fatal(err)
		}
		return (<-done).Sub(start)
	}

	// The floor's two connections.
	listener, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer listener.Close(ctx)
	if _, err := listener.Exec(ctx, `LISTEN floor`); err != nil {
		b.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `CREATE TABLE floor (n bigint)`); err != nil {
		b.Fatal(err)
	}
	floor := func() time.Duration {
		start := time.Now()
		err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO floor VALUES (1)`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `NOTIFY floor`)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := listener.WaitForNotification(ctx); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}

	b.ResetTimer()
	var w, f time.Duration
	for range b.N {
		w += wake()
		f += floor()
	}
	b.ReportMetric(float64(w.Microseconds())/float64(b.N), "µs/wake")
	b.ReportMetric(float64(f.Microseconds())/float64(b.N), "µs/floor")
	b.ReportMetric(float64(w)/float64(f), "wake/floor")
}
