package store

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// holdCommit starts a write whose transaction stays open until release is
// closed, and returns once it runs: writers started after it queue.
func holdCommit(t *testing.T, db *DB) (release chan struct{}, done chan error) {
	t.Helper()
	release, done, running := make(chan struct{}), make(chan error, 1), make(chan struct{})
	go func() {
		done <- db.write(func(tx *bolt.Tx) error {
			select {
			case <-running:
			default:
				close(running)
			}
			<-release
			return tx.Bucket(bucketMeta).Put([]byte("held"), []byte{1})
		})
	}()
	select {
	case <-running:
	case <-time.After(10 * time.Second):
		t.Fatal("the held write never ran")
	}
	return release, done
}

// waitQueued waits until n writes queue behind the running commit.
func waitQueued(t *testing.T, db *DB, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		db.commits.mu.Lock()
		defer db.commits.mu.Unlock()
		return len(db.commits.queue) == n
	}, 10*time.Second, time.Millisecond, "writes queued behind the running commit")
}

// put is a write of key=value into meta that records the id of the
// transaction it ran in (the last, when it ran more than once).
func put(db *DB, key string, txid *int, fail error) func() error {
	return func() error {
		return db.write(func(tx *bolt.Tx) error {
			*txid = tx.ID()
			if fail != nil {
				return fail
			}
			return tx.Bucket(bucketMeta).Put([]byte(key), []byte(key))
		})
	}
}

// commitGroupOf commits n writes in one group (behind a held commit) and
// returns the id of its transaction.
func commitGroupOf(t *testing.T, db *DB, n int) (txid int) {
	t.Helper()
	release, held := holdCommit(t, db)
	txids := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = put(db, fmt.Sprint("group", i), &txids[i], nil)() })
	}
	waitQueued(t, db, n)
	close(release)
	wg.Wait()
	require.NoError(t, <-held)
	require.NoError(t, errors.Join(errs...))
	for i := range n {
		require.Equal(t, txids[0], txids[i], "write %d committed apart", i)
	}
	return txids[0]
}

func TestGroupCommit(t *testing.T) {
	t.Run("writes queued behind a commit share the next one", func(t *testing.T) {
		db := openTestDB(t)
		release, held := holdCommit(t, db)
		const n = 10
		txids := make([]int, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { errs[i] = put(db, fmt.Sprint("k", i), &txids[i], nil)() })
		}
		waitQueued(t, db, n)
		close(release)
		wg.Wait()
		require.NoError(t, <-held)
		for i := range n {
			require.NoError(t, errs[i])
			require.Equal(t, txids[0], txids[i], "write %d committed apart", i)
		}
		require.NoError(t, db.bolt.View(func(tx *bolt.Tx) error {
			for i := range n {
				require.Equal(t, fmt.Sprint("k", i), string(tx.Bucket(bucketMeta).Get([]byte(fmt.Sprint("k", i)))))
			}
			return nil
		}))
	})

	t.Run("a failing write gets its own error and the others commit without it", func(t *testing.T) {
		db := openTestDB(t)
		release, held := holdCommit(t, db)
		boom := errors.New("boom")
		const n = 5
		txids := make([]int, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			var fail error
			if i == 2 {
				fail = boom
			}
			wg.Go(func() { errs[i] = put(db, fmt.Sprint("k", i), &txids[i], fail)() })
		}
		waitQueued(t, db, n)
		close(release)
		wg.Wait()
		require.NoError(t, <-held)
		require.ErrorIs(t, errs[2], boom)
		var committed []int
		for i := range n {
			if i != 2 {
				require.NoError(t, errs[i])
				committed = append(committed, txids[i])
			}
		}
		for _, id := range committed {
			require.Equal(t, committed[0], id, "the others share one commit")
		}
		require.NoError(t, db.bolt.View(func(tx *bolt.Tx) error {
			require.Nil(t, tx.Bucket(bucketMeta).Get([]byte("k2")), "nothing of the failed write is stored")
			require.NotNil(t, tx.Bucket(bucketMeta).Get([]byte("k4")))
			return nil
		}))
	})

	t.Run("a write that panics panics in its own caller and the others commit", func(t *testing.T) {
		db := openTestDB(t)
		release, held := holdCommit(t, db)
		var ok int
		var okErr error
		var panicked any
		var wg sync.WaitGroup
		wg.Go(func() {
			defer func() { panicked = recover() }()
			_ = db.write(func(*bolt.Tx) error { panic("bad write") })
		})
		wg.Go(func() { okErr = put(db, "ok", &ok, nil)() })
		waitQueued(t, db, 2)
		close(release)
		wg.Wait()
		require.NoError(t, <-held)
		require.Equal(t, "bad write", panicked)
		require.NoError(t, okErr)
		require.NoError(t, db.bolt.View(func(tx *bolt.Tx) error {
			require.NotNil(t, tx.Bucket(bucketMeta).Get([]byte("ok")))
			return nil
		}))
	})

	t.Run("a lone write after a group waits a bounded time for it and then commits alone", func(t *testing.T) {
		db := openTestDB(t)
		group := commitGroupOf(t, db, 3)
		expect := func() int {
			db.commits.mu.Lock()
			defer db.commits.mu.Unlock()
			return db.commits.expect
		}
		require.Equal(t, 3, expect(), "the last group's size")

		// Nobody else comes: the write commits at the bound, alone, and the
		// next lone write does not wait.
		var lone int
		require.NoError(t, put(db, "b", &lone, nil)())
		require.Greater(t, lone, group)
		require.Equal(t, 1, expect())
	})

	t.Run("a lone write after a group waits for as many writes and commits with them", func(t *testing.T) {
		db := openTestDB(t)
		db.commits.wait = time.Minute // the group, not the bound, ends the wait
		const n = 3
		commitGroupOf(t, db, n)

		txids := make([]int, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := time.Now()
		wg.Go(func() { errs[0] = put(db, "b0", &txids[0], nil)() })
		require.Eventually(t, func() bool {
			db.commits.mu.Lock()
			defer db.commits.mu.Unlock()
			return db.commits.gather != nil
		}, 10*time.Second, time.Millisecond, "the lone write gathers")
		for i := 1; i < n; i++ {
			wg.Go(func() { errs[i] = put(db, fmt.Sprint("b", i), &txids[i], nil)() })
		}
		wg.Wait()
		require.Less(t, time.Since(start), 30*time.Second, "the group, not the bound, ended the wait")
		for i := range n {
			require.NoError(t, errs[i])
			require.Equal(t, txids[0], txids[i], "write %d committed apart", i)
		}
	})

	t.Run("a write with nothing to write leaves the group's commit to the others, and alone commits nothing", func(t *testing.T) {
		db := openTestDB(t)
		release, held := holdCommit(t, db)
		var wrote, idle int
		var wroteErr, idleErr error
		var wg sync.WaitGroup
		runs := 0
		wg.Go(func() { wroteErr = put(db, "w", &wrote, nil)() })
		wg.Go(func() {
			idleErr = db.write(func(tx *bolt.Tx) error {
				runs++
				idle = tx.ID()
				return errNothing
			})
		})
		waitQueued(t, db, 2)
		close(release)
		wg.Wait()
		require.NoError(t, <-held)
		require.NoError(t, wroteErr)
		require.ErrorIs(t, idleErr, errNothing)
		require.Equal(t, 1, runs, "run once, in the group: not again alone")
		require.Equal(t, wrote, idle, "in the same transaction")

		before := lastTxID(t, db)
		require.ErrorIs(t, db.write(func(*bolt.Tx) error { return errNothing }), errNothing)
		require.Equal(t, before, lastTxID(t, db), "a lone write with nothing to write is not committed")
	})
}
