package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
)

// Retention runs on one replica at a time: while another holds the
// retention lock, a prune deletes nothing; once it is free, it does.
func TestPruneRunsOnOneReplicaAtATime(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, pgtest.DB(t))
	clock := clocktest.New(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New(), Clock: clock})
	q, _, err := svc.Questions.Create(auth.WithPrincipal(ctx, auth.TokenPrincipal("agent", nil, "")), "run", hitl.NewQuestion{Question: "Q?"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Questions.Answer(auth.WithPrincipal(ctx, auth.TokenPrincipal("person", []auth.Scope{auth.ScopeAdmin}, "")), q.ID, hitl.Response{Value: "x"}); err != nil {
		t.Fatal(err)
	}
	clock.Add(48 * time.Hour)

	other, err := db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(pruneLock)); err != nil {
		t.Fatal(err)
	}
	n, err := db.Prune(ctx, clock.Now().Add(-24*time.Hour), 100)
	if err != nil || n != 0 {
		t.Fatalf("prune while another replica prunes: %d deleted, %v; want 0", n, err)
	}
	if _, err := db.Question(ctx, q.ID); err != nil {
		t.Fatalf("the question went while another replica held retention: %v", err)
	}
	if err := other.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	n, err = db.Prune(ctx, clock.Now().Add(-24*time.Hour), 100)
	if err != nil || n == 0 {
		t.Fatalf("prune once the lock is free: %d deleted, %v", n, err)
	}
	if _, err := db.Question(ctx, q.ID); fault.Code(err) != fault.ENOTFOUND {
		t.Fatalf("the settled question is still there: %v", err)
	}
}
