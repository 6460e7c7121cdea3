package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/runhandle"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/require"
)

// BenchmarkRunsWithHandles lists a page of 100 open runs with their
// handles (hitl runs) among 10,000 runs of Claude Code sessions, and
// resolves one handle (hitl pause claude-3f2b): each costs what its
// answer holds, not the runs stored.
func BenchmarkRunsWithHandles(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "hitl.db"))
	require.NoError(b, err)
	b.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	var last string
	for i := range 10_000 {
		id := "claude-" + uuid.NewString()
		last = id
		st := steer.RunDone
		if i%100 == 0 {
			st = steer.RunRunning
		}
		_, err := db.UpdateRun(ctx, id, func(*hitl.Run) (hitl.RunUpdate, error) {
			return hitl.RunUpdate{Run: &hitl.Run{ID: id, CreatedAt: t0, UpdatedAt: t0, Control: steer.RunControl{Status: st}}}, nil
		})
		require.NoError(b, err)
	}
	svc := newService(db, newClock())
	actx := as("admin:bench")
	b.Run("list 100 open runs with handles", func(b *testing.B) {
		for b.Loop() {
			page, err := svc.Runs.Runs(actx, true, 100, "")
			if err != nil || len(page.Handles) != 100 {
				b.Fatalf("%d handles, %v", len(page.Handles), err)
			}
		}
	})
	b.Run("the same page without handles (the store's list)", func(b *testing.B) {
		for b.Loop() {
			if page, err := db.Runs(ctx, true, 100, ""); err != nil || len(page.Runs) != 100 {
				b.Fatalf("%d runs, %v", len(page.Runs), err)
			}
		}
	})
	b.Run("resolve a handle", func(b *testing.B) {
		h, err := runhandle.Of(ctx, db, last)
		require.NoError(b, err)
		for b.Loop() {
			if got, err := runhandle.Resolve(actx, svc.Runs, h); err != nil || got != last {
				b.Fatal(fmt.Sprint(got, err))
			}
		}
	})
}
