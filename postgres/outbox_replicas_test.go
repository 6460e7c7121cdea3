package postgres

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/pgtest"
)

// Two replicas that projected the same events enqueue their deliveries
// once: what the first enqueued (events up to its cursor) the second
// leaves out.
func TestEnqueueOnceAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	a, b := openDB(t, url), openDB(t, url)
	post := func(ev uint64) hitl.Delivery {
		return hitl.Delivery{Kind: "post", QuestionID: "q" + string(rune('0'+ev)), Target: "C1", Event: ev}
	}
	if err := a.Enqueue(ctx, 3, []hitl.Delivery{post(1), post(2), post(3)}); err != nil {
		t.Fatal(err)
	}
	late := []hitl.Delivery{post(1), post(2), post(3), post(4), post(5)}
	if err := b.Enqueue(ctx, 5, late); err != nil {
		t.Fatal(err)
	}
	for i, d := range late {
		if (d.Seq == 0) != (i < 3) {
			t.Errorf("delivery of event %d: Seq %d (want 0 for the events replica a enqueued)", d.Event, d.Seq)
		}
	}
	if err := a.Enqueue(ctx, 4, nil); err != nil {
		t.Fatal(err)
	}
	cur, err := b.OutboxCursor(ctx)
	if err != nil || cur != 5 {
		t.Fatalf("cursor %d, %v: want 5 (it never moves back)", cur, err)
	}
	var got []string
	for {
		d, err := a.NextDelivery(ctx, "C1")
		if fault.Code(err) == fault.ENOTFOUND {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		got = append(got, d.QuestionID)
		if err := a.Complete(ctx, d, nil); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"q1", "q2", "q3", "q4", "q5"}; len(got) != len(want) {
		t.Fatalf("delivered %v, want %v: each once", got, want)
	}
}

// A target's deliveries are done by the replica holding its claim; the
// others find nothing to do until it gives the claim up (its queue
// emptied) or the claim's lease runs out (the holder died).
func TestDeliveryClaimsAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	a, b := openDB(t, url), openDB(t, url)
	if err := a.Enqueue(ctx, 1, []hitl.Delivery{{Kind: "post", QuestionID: "q1", Target: "C1"}, {Kind: "post", QuestionID: "q2", Target: "C1"}}); err != nil {
		t.Fatal(err)
	}
	d, err := a.NextDelivery(ctx, "C1")
	if err != nil || d.QuestionID != "q1" || d.Resumed {
		t.Fatalf("a's first read: %+v, %v (a new claim: not resumed)", d, err)
	}
	if _, err := b.NextDelivery(ctx, "C1"); fault.Code(err) != fault.ENOTFOUND {
		t.Fatalf("b while a holds C1: %v, want not found", err)
	}
	if err := a.Complete(ctx, d, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.NextDelivery(ctx, "C1"); fault.Code(err) != fault.ENOTFOUND {
		t.Fatalf("b between a's deliveries: %v, want not found (a keeps C1 while it has work)", err)
	}
	d, err = a.NextDelivery(ctx, "C1")
	if err != nil || d.QuestionID != "q2" || d.Resumed {
		t.Fatalf("a's second read: %+v, %v (its own claim: not resumed)", d, err)
	}
	if err := a.Complete(ctx, d, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.NextDelivery(ctx, "C1"); fault.Code(err) != fault.ENOTFOUND {
		t.Fatalf("a on an emptied queue: %v", err)
	}
	if err := a.Enqueue(ctx, 2, []hitl.Delivery{{Kind: "post", QuestionID: "q3", Target: "C1"}}); err != nil {
		t.Fatal(err)
	}
	d, err = b.NextDelivery(ctx, "C1")
	if err != nil || d.QuestionID != "q3" || d.Resumed {
		t.Fatalf("b after a gave C1 up: %+v, %v (given up, not lapsed: not resumed)", d, err)
	}

	t.Run("a claim whose lease ran out is taken over", func(t *testing.T) {
		if err := a.Enqueue(ctx, 3, []hitl.Delivery{{Kind: "post", QuestionID: "q4", Target: "C2"}}); err != nil {
			t.Fatal(err)
		}
		a.SetLease(-1) // a claim already over: a replica that died at once
		if _, err := a.NextDelivery(ctx, "C2"); err != nil {
			t.Fatal(err)
		}
		d, err := b.NextDelivery(ctx, "C2")
		if err != nil || d.QuestionID != "q4" || !d.Resumed {
			t.Fatalf("b after a's lease ran out: %+v, %v (want resumed: a may have started it)", d, err)
		}
		if d, err := b.NextDelivery(ctx, "C2"); err != nil || d.Resumed {
			t.Fatalf("b's next read of C2: %+v, %v (its own claim now: not resumed)", d, err)
		}
		a.SetLease(DefaultLease)
		if _, err := a.NextDelivery(ctx, "C2"); fault.Code(err) != fault.ENOTFOUND {
			t.Fatalf("a after b took C2 over: %v", err)
		}
	})
}
