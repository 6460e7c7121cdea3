package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/postgres"
	"github.com/hitlbot/hitl/service"
)

// Replicas sweeping at the same time time out each due question once:
// the batch update locks the rows, and the second replica finds them
// settled.
func TestDueQuestionsTimeOutOnceAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := clocktest.New(t0)
	const replicas, due = 3, 600
	var svcs []*service.Service
	var first *postgres.DB
	for i := range replicas {
		db, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		if first == nil {
			first = db
		}
		n := 0
		svcs = append(svcs, service.NewService(db, service.ServiceConfig{Notifier: notify.New(), Clock: clock,
			NewID: func() string { n++; return fmt.Sprintf("q_r%d_%06d", i, n) }}))
	}
	agent := auth.WithPrincipal(ctx, auth.TokenPrincipal("agent", nil, ""))
	five := 5.0
	for i := range due {
		if _, _, err := svcs[i%replicas].Questions.Create(agent, fmt.Sprintf("run-%d", i%10), hitl.NewQuestion{Question: "Q?", TimeoutMinutes: &five}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Add(time.Hour)
	var wg sync.WaitGroup
	settled := make([]int, replicas)
	errs := make([]error, replicas)
	for i, s := range svcs {
		wg.Go(func() { settled[i], errs[i] = s.Questions.SweepExpired(ctx) })
	}
	wg.Wait()
	total := 0
	for i := range replicas {
		if errs[i] != nil {
			t.Fatalf("replica %d: %v", i, errs[i])
		}
		total += settled[i]
	}
	if total != due {
		t.Errorf("the replicas settled %d questions between them (%v), want %d: each once", total, settled, due)
	}
	evs, err := first.Events(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	timeouts := map[string]int{}
	for _, ev := range evs {
		if ev.Type == hitl.EventQuestionTimeout {
			timeouts[ev.QuestionID]++
		}
	}
	if len(timeouts) != due {
		t.Errorf("%d questions have a timeout event, want %d", len(timeouts), due)
	}
	for id, n := range timeouts {
		if n != 1 {
			t.Errorf("question %s timed out %d times", id, n)
		}
	}
}
