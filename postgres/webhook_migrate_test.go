package postgres

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
)

// undoVersion12 turns the database back into what version 11 held: no
// webhook outbox (nor version 13's rollups, which follow it).
var undoVersion12 = append(slices.Clone(undoVersion13), `DROP TABLE webhooks`, `DROP TABLE webhook_last`)

// undoVersions10To12 turns the database back into what version 9 held
// (version 11 only marked rows: nothing to undo).
func undoVersions10To12() []string {
	return append(slices.Clone(undoVersion12), undoVersion10...)
}

// TestMigrateWebhooks: a version 11 database (no webhook tables) gets the
// webhook outbox, and an event written after carries its deliveries.
func TestMigrateWebhooks(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	db := openDB(t, url)
	createDue(t, db, &hitl.Question{ID: "q_old", Status: hitl.StatusPending}, 30)
	db = downgrade(t, db, url, append(undoVersion12, `UPDATE hitl_schema_version SET version = 11`)...)
	var ver int
	if err := db.pool.QueryRow(ctx, `SELECT version FROM hitl_schema_version`).Scan(&ver); err != nil || ver != SchemaVersion {
		t.Fatalf("version %d (%v), want %d", ver, err, SchemaVersion)
	}
	ev := &hitl.Event{Type: hitl.EventQuestionAnswered, QuestionID: "q_old", RunID: "run-1", At: migrationT0,
		Webhooks: []hitl.WebhookDelivery{{ID: "msg_1", Endpoint: "ops", Type: hitl.WebhookQuestionAnswered, RunID: "run-1", NextAt: migrationT0, Body: []byte(`{}`)}}}
	if err := db.AppendEvent(ctx, ev); err != nil {
		t.Fatal(err)
	}
	got, err := db.ClaimWebhooks(ctx, migrationT0, migrationT0.Add(time.Minute), hitl.WebhookClaim{})
	if err != nil || len(got) != 1 || got[0].EventSeq != ev.Seq || got[0].Status != hitl.WebhookPending {
		t.Fatalf("claimed %+v, %v; want the delivery of event %d", got, err, ev.Seq)
	}
}

// TestMigrateWebhookTargets: version 14 kept a callback's target as its
// host was spelled (http://LOCALHOST:8080 and http://localhost:8080 were
// two queues, both due) and no asker. Version 15 renames each callback's
// target to its normalised origin (one queue, in seq order), moves its
// last success there, and leaves an endpoint's target alone.
func TestMigrateWebhookTargets(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	db := openDB(t, url)
	cb := func(id, u string) hitl.WebhookDelivery {
		return hitl.WebhookDelivery{ID: id, URL: u, Type: hitl.WebhookQuestionAnswered, RunID: "r1", NextAt: migrationT0, CreatedAt: migrationT0, Body: []byte(`{}`)}
	}
	ev := &hitl.Event{Type: hitl.EventQuestionAnswered, QuestionID: "q1", RunID: "r1", At: migrationT0, Webhooks: []hitl.WebhookDelivery{
		cb("msg_1", "http://localhost.:8080/done"),
		cb("msg_2", "http://LOCALHOST:8080/a"),
		cb("msg_3", "http://localhost:8080/b"),
		{ID: "msg_4", Endpoint: "ops", Type: hitl.WebhookQuestionAnswered, RunID: "r1", NextAt: migrationT0, CreatedAt: migrationT0, Body: []byte(`{}`)},
	}}
	if err := db.AppendEvent(ctx, ev); err != nil {
		t.Fatal(err)
	}
	first, err := db.ClaimWebhooks(ctx, migrationT0, migrationT0.Add(time.Minute), hitl.WebhookClaim{Limit: 1})
	if err != nil || len(first) != 1 || first[0].ID != "msg_1" {
		t.Fatalf("claimed %+v, %v; want msg_1", first, err)
	}
	done := migrationT0.Add(time.Second)
	first[0].Status, first[0].Attempts, first[0].SettledAt = hitl.WebhookDelivered, 1, &done
	if err := db.SettleWebhook(ctx, first[0]); err != nil {
		t.Fatal(err)
	}
	s := ev.Webhooks
	db = downgrade(t, db, url,
		`ALTER TABLE webhooks DROP COLUMN asker`,
		fmt.Sprintf(`UPDATE webhooks SET target = 'callback:localhost.:8080' WHERE seq = %d`, s[0].Seq),
		fmt.Sprintf(`UPDATE webhooks SET target = 'callback:LOCALHOST:8080' WHERE seq = %d`, s[1].Seq),
		fmt.Sprintf(`UPDATE webhooks SET target = 'callback:localhost:8080' WHERE seq = %d`, s[2].Seq),
		`DELETE FROM webhook_last`,
		fmt.Sprintf(`INSERT INTO webhook_last VALUES ('callback:localhost.:8080', %d)`, done.UnixNano()),
		`UPDATE hitl_schema_version SET version = 14`)

	now := migrationT0.Add(time.Hour)
	got, err := db.ClaimWebhooks(ctx, now, now.Add(time.Minute), hitl.WebhookClaim{})
	if err != nil || len(got) != 2 || got[0].ID != "msg_2" || got[1].Endpoint != "ops" {
		t.Fatalf("claimed %+v, %v; want msg_2 (the head of the one callback queue) and ops's", got, err)
	}
	stats, err := db.WebhookStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, st := range stats {
		targets = append(targets, st.Target)
		if st.Target == "callback:http://localhost:8080" && (st.Pending != 2 || st.LastSuccess == nil || !st.LastSuccess.Equal(done)) {
			t.Errorf("stats %+v: want 2 pending, last success %s", st, done)
		}
	}
	if !slices.Equal(targets, []string{"callback:http://localhost:8080", "ops"}) {
		t.Errorf("targets %q: want the normalised callback target and ops", targets)
	}
}
