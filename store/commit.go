package store

import (
	"errors"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// commits shares commits between concurrent writers (group commit).
// Writers that arrive while a commit runs queue, and the first of them
// commits them all in one transaction as soon as it ends: under load a
// commit carries everything that queued behind the one before. A writer
// that finds no commit running commits at once, alone, unless the last
// commit carried a group: then it waits, at most gatherWait, for as many
// writers to queue (those of the last group coming back), so that a
// group's writers, released together, do not split into one alone and
// the rest behind it.
//
// bbolt's Batch cuts a batch a fixed delay after its first call, however
// long the commit before it takes; with it, and with no gathering, 16
// concurrent askers shared a commit 8 at a time, against 16 for raw Batch
// commits whose callers do nothing between them (BenchmarkCreateVsBatch,
// docs/benchmarks.md).
type commits struct {
	mu      sync.Mutex
	queue   []*commitCall
	running bool // a leader is committing or about to
	// expect is the size of the last group: a writer that finds no commit
	// running after a group of several waits (at most gatherWait) for as
	// many to queue, closing gather when they have.
	expect int
	gather chan struct{}
	// wait is how long a lone writer gathers: gatherWait, unless a test
	// set it.
	wait time.Duration
}

// gatherWait bounds how long a lone writer waits for the writers of the
// last group to come back: when the load drops, one write waits this long
// (as every write waited in bbolt's Batch, with its delay of 1 ms), and
// the next, the last group being that one write, does not.
const gatherWait = time.Millisecond

// commitCall is one writer's function and where its outcome goes: done
// gets the commit's error (or errTrySolo), lead is closed when this
// writer is to lead the next group.
type commitCall struct {
	fn   func(*bolt.Tx) error
	done chan error
	lead chan struct{}
}

// errTrySolo tells a writer whose function failed inside a group to run
// it again in a transaction of its own, so that its error is its own and
// the others commit without it.
var errTrySolo = errors.New("store: run the write alone")

// errNothing is what a write's function returns when it decided, before
// writing anything, that it has nothing to write (a retry, a refusal):
// it leaves the group's commit to the others, and a group of such calls
// alone is rolled back, not committed (no fsync). The writer gets it back.
var errNothing = errors.New("nothing to write")

// write runs fn in a write transaction committed (fsync'd) before it
// returns, shared with the writers that queue with it (see commits). fn
// may run more than once and must reset what it reports at its top.
func (db *DB) write(fn func(*bolt.Tx) error) error {
	c := &commitCall{fn: fn, done: make(chan error, 1), lead: make(chan struct{})}
	g := &db.commits
	g.mu.Lock()
	g.queue = append(g.queue, c)
	if g.gather != nil && len(g.queue) >= g.expect {
		close(g.gather)
		g.gather = nil
	}
	leader := !g.running
	var gather chan struct{}
	if leader {
		g.running = true
		if g.expect > 1 {
			gather = make(chan struct{})
			g.gather = gather
		}
	}
	g.mu.Unlock()
	if gather != nil {
		wait := gatherWait
		if g.wait > 0 {
			wait = g.wait
		}
		t := time.NewTimer(wait)
		select {
		case <-gather:
		case <-t.C:
		}
		t.Stop()
		g.mu.Lock()
		g.gather = nil
		g.mu.Unlock()
	}
	if leader {
		db.commitGroup()
	}
	for {
		select {
		case err := <-c.done:
			if err == errTrySolo {
				return db.bolt.Update(fn)
			}
			return err
		case <-c.lead:
			db.commitGroup()
			c.lead = nil // led once; now wait for the outcome
		}
	}
}

// commitGroup commits every queued call in one transaction, then hands
// the lead to the first call that queued meanwhile, or ends the run.
func (db *DB) commitGroup() {
	g := &db.commits
	g.mu.Lock()
	calls := g.queue
	g.queue = nil
	g.expect = len(calls)
	g.mu.Unlock()
	for len(calls) > 0 {
		failed := -1
		idle := make([]bool, len(calls)) // wrote nothing (errNothing)
		err := db.bolt.Update(func(tx *bolt.Tx) error {
			wrote := false
			for i, c := range calls {
				switch err := safely(c.fn, tx); {
				case err == errNothing:
					idle[i] = true
				case err != nil:
					failed = i
					return err
				default:
					wrote = true
				}
			}
			if !wrote {
				return errNothing // roll back: nothing to commit
			}
			return nil
		})
		if failed >= 0 {
			calls[failed].done <- errTrySolo
			calls = append(calls[:failed], calls[failed+1:]...)
			continue
		}
		for i, c := range calls {
			if idle[i] {
				c.done <- errNothing // its read was whole; it had nothing to commit
				continue
			}
			c.done <- err
		}
		break
	}
	g.mu.Lock()
	if len(g.queue) > 0 {
		close(g.queue[0].lead)
	} else {
		g.running = false
	}
	g.mu.Unlock()
}

// safely calls fn, turning a panic into an error (the writer then runs fn
// alone, where the panic is its own).
func safely(fn func(*bolt.Tx) error, tx *bolt.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("write panicked: %v", p)
		}
	}()
	return fn(tx)
}
