package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestMigrateOpen: a version 8 file indexed running and paused runs only;
// opening it indexes the runs that wait on a person too, and not the
// others.
func TestMigrateOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := Open(path)
	require.NoError(t, err)
	svc := newService(db, newClock())
	ask(t, svc, "waits", 30)
	answered := ask(t, svc, "answered", 30)
	_, err = svc.Questions.Answer(as("local"), answered.ID, hitl.Response{Value: "ok"})
	require.NoError(t, err)
	// Turn the file into what version 8 wrote: a run of questions only was
	// never in runs_active.
	db = reopenAs(t, db, 8, func(tx *bolt.Tx) error {
		return tx.Bucket(bucketRunsActive).Delete([]byte("waits"))
	}) // checked on cleanup: runs_active holds exactly the open runs
	page, err := db.Runs(ctx, true, 10, "")
	require.NoError(t, err)
	var ids []string
	for _, r := range page.Runs {
		ids = append(ids, r.ID)
	}
	require.Equal(t, []string{"waits"}, ids)
}
