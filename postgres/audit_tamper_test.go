package postgres_test

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/storetest"
	"github.com/hitlbot/hitl/postgres"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// sqlTamper edits the audit table with SQL, on a connection of its own.
type sqlTamper struct{ conn *pgx.Conn }

func (s sqlTamper) Edit(t *testing.T, seq uint64, edit func([]byte) []byte) {
	ctx := context.Background()
	var data []byte
	require.NoError(t, s.conn.QueryRow(ctx, `SELECT data FROM audit WHERE seq = $1`, int64(seq)).Scan(&data))
	_, err := s.conn.Exec(ctx, `UPDATE audit SET data = $2 WHERE seq = $1`, int64(seq), edit(data))
	require.NoError(t, err)
}

func (s sqlTamper) Delete(t *testing.T, seq uint64) {
	_, err := s.conn.Exec(context.Background(), `DELETE FROM audit WHERE seq = $1`, int64(seq))
	require.NoError(t, err)
}

func (s sqlTamper) Swap(t *testing.T, a, b uint64) {
	_, err := s.conn.Exec(context.Background(), `UPDATE audit SET data = CASE seq WHEN $1 THEN (SELECT data FROM audit WHERE seq = $2)
		ELSE (SELECT data FROM audit WHERE seq = $1) END WHERE seq IN ($1, $2)`, int64(a), int64(b))
	require.NoError(t, err)
}

// TestAuditTamper: verify names the record edited, deleted or reordered
// directly in PostgreSQL's tables.
func TestAuditTamper(t *testing.T) {
	storetest.RunAuditTamper(t, func(t *testing.T) (storetest.AuditBackend, storetest.Tamper) {
		url := pgtest.DB(t)
		db, err := postgres.Open(context.Background(), url)
		require.NoError(t, err)
		t.Cleanup(func() { _ = db.Close() })
		conn, err := pgx.Connect(context.Background(), url)
		require.NoError(t, err)
		t.Cleanup(func() { _ = conn.Close(context.Background()) })
		return db, sqlTamper{conn}
	})
}
