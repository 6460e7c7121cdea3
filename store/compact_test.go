package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := Open(path)
	require.NoError(t, err)
	clock := newClock()
	svc := newService(db, clock)
	var keep *hitl.Question
	for i := range 200 {
		q := ask(t, svc, "job-1", 30)
		_, err := svc.Questions.Answer(as("slack:U1"), q.ID, hitl.Response{Value: "x"})
		require.NoError(t, err)
		if i == 199 {
			keep = q
		}
		clock.Add(time.Second)
	}
	clock.Add(time.Hour)
	keep = ask(t, svc, "job-2", 30)
	_, err = svc.Questions.Prune(context.Background(), 30*time.Minute)
	require.NoError(t, err)

	t.Run("a running database is refused", func(t *testing.T) {
		_, err := Compact(path)
		assert.Equal(t, fault.EUNAVAILABLE, fault.Code(err))
		assert.Contains(t, fault.Message(err), "stop it first")
	})
	require.NoError(t, db.Close())

	t.Run("a stopped one shrinks and keeps what is live", func(t *testing.T) {
		res, err := Compact(path)
		require.NoError(t, err)
		assert.Less(t, res.After, res.Before, "pruned pages are gone from the file")
		db, err := Open(path)
		require.NoError(t, err)
		closeAndCheckOnCleanup(t, db)
		got, err := db.Question(context.Background(), keep.ID)
		require.NoError(t, err)
		assert.True(t, got.Pending())
	})
}
