package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/postgres"
	"github.com/jackc/pgx/v5"
)

func TestReplicasStartingAtOnceMigrateOnce(t *testing.T) {
	ctx := context.Background()
	url := pgtest.DB(t)
	const replicas = 4
	var wg sync.WaitGroup
	errs := make([]error, replicas)
	for i := range replicas {
		wg.Go(func() {
			db, err := postgres.Open(ctx, url)
			if err == nil {
				_ = db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var rows, version int
	if err := conn.QueryRow(ctx, `SELECT count(*), max(version) FROM hitl_schema_version`).Scan(&rows, &version); err != nil {
		t.Fatal(err)
	}
	if rows != 1 || version != postgres.SchemaVersion {
		t.Fatalf("schema version table holds %d rows, version %d: want 1 row, version %d", rows, version, postgres.SchemaVersion)
	}

	if _, err := conn.Exec(ctx, `UPDATE hitl_schema_version SET version = version + 1`); err != nil {
		t.Fatal(err)
	}
	_, err = postgres.Open(ctx, url)
	if err == nil || !strings.Contains(err.Error(), "newer than this hitl supports") {
		t.Fatalf("a newer schema: got %v, want a refusal naming it", err)
	}
}
