package postgres_test

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/storetest"
	"github.com/hitlbot/hitl/postgres"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// open returns a store on a fresh database, closed when t ends.
func open(t testing.TB) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), pgtest.DB(t))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// TestStoreContract runs every part of hitl.Store's contract
// (TestStoreContract/QuestionStore, …/RunStore, …).
func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) hitl.Store { return open(t) })
}

func TestOutboxContract(t *testing.T) {
	storetest.Outbox(t, func(t *testing.T) hitl.Outbox { return open(t) })
}

func TestMailContract(t *testing.T) {
	storetest.MailOutbox(t, func(t *testing.T) hitl.MailOutbox { return open(t) })
}

func TestRollupContract(t *testing.T) {
	storetest.RunRollups(t, func(t *testing.T) storetest.RollupBackend { return open(t) })
}

func TestAuditContract(t *testing.T) {
	storetest.RunAudit(t, func(t *testing.T) storetest.AuditBackend { return open(t) })
}
