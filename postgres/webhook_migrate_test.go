package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/webhook"
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
		Webhooks: []webhook.Delivery{{ID: "msg_1", Endpoint: "ops", Type: webhook.QuestionAnswered, RunID: "run-1", NextAt: migrationT0, Body: []byte(`{}`)}}}
	if err := db.AppendEvent(ctx, ev); err != nil {
		t.Fatal(err)
	}
	got, err := db.ClaimWebhooks(ctx, migrationT0, migrationT0.Add(time.Minute), 0, nil)
	if err != nil || len(got) != 1 || got[0].Event != ev.Seq || got[0].Status != webhook.Pending {
		t.Fatalf("claimed %+v, %v; want the delivery of event %d", got, err, ev.Seq)
	}
}
