package storetest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
)

// wakeWithin bounds how long a test waits for a wake-up it is owed; a
// notifier that loses one fails at this deadline instead of hanging.
const wakeWithin = 10 * time.Second

// RunNotifier runs the contract of hitl.Notifier against notifiers made
// by open (a new one, with no waiters, per call).
//
// Wake-ups may be spurious, so the suite asserts that a waiter is not
// woken only once a later wake-up on the same notifier has arrived: a
// notifier that wakes the watchers of every id on every change is
// correct but defeats its purpose, and fails here.
func RunNotifier(t *testing.T, open func(t *testing.T) hitl.Notifier) {
	t.Run("publish wakes the watchers of its id and every Changed", func(t *testing.T) { testNotifyWakes(t, open(t)) })
	t.Run("publish leaves the watchers of other ids waiting", func(t *testing.T) { testNotifyOthers(t, open(t)) })
	t.Run("an empty id wakes Changed alone", func(t *testing.T) { testNotifyEmpty(t, open(t)) })
	t.Run("a watch is woken once per change, then watched again", func(t *testing.T) { testNotifyRewatch(t, open(t)) })
	t.Run("cancel may be called twice, and after the wake-up", func(t *testing.T) { testNotifyCancel(t, open(t)) })
	t.Run("every watch taken before a publish is woken, publishers racing", func(t *testing.T) { testNotifyRounds(t, open(t)) })
	t.Run("a waiter that watches before it reads never misses a change", func(t *testing.T) { testNotifyNoLostWakeup(t, open(t)) })
}

func woken(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(wakeWithin):
		t.Fatalf("%s: not woken within %s", what, wakeWithin)
	}
}

func waiting(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("%s: woken by a change of something else", what)
	default:
	}
}

func testNotifyWakes(t *testing.T, n hitl.Notifier) {
	a1, cancel1 := n.Watch("a")
	defer cancel1()
	a2, cancel2 := n.Watch("a")
	defer cancel2()
	changed := n.Changed()
	n.Publish("a")
	woken(t, a1, "first watcher of a")
	woken(t, a2, "second watcher of a")
	woken(t, changed, "Changed")
}

func testNotifyOthers(t *testing.T, n hitl.Notifier) {
	b, cancelB := n.Watch("b")
	defer cancelB()
	a, cancelA := n.Watch("a")
	defer cancelA()
	n.Publish("a")
	woken(t, a, "watcher of a")
	waiting(t, b, "watcher of b")
	n.Publish("b")
	woken(t, b, "watcher of b")
}

func testNotifyEmpty(t *testing.T, n hitl.Notifier) {
	a, cancel := n.Watch("a")
	defer cancel()
	changed := n.Changed()
	n.Publish("")
	woken(t, changed, "Changed")
	waiting(t, a, "watcher of a")
}

func testNotifyRewatch(t *testing.T, n hitl.Notifier) {
	for i := range 3 {
		a, cancel := n.Watch("a")
		changed := n.Changed()
		n.Publish("a")
		woken(t, a, fmt.Sprintf("watch %d of a", i))
		woken(t, changed, fmt.Sprintf("Changed %d", i))
		cancel()
	}
}

func testNotifyCancel(t *testing.T, n hitl.Notifier) {
	_, cancelGone := n.Watch("a") // a cancelled channel may close or not: the notifier only forgets it
	cancelGone()
	cancelGone()
	kept, cancelKept := n.Watch("a")
	n.Publish("a")
	woken(t, kept, "the watcher of a that stayed")
	cancelKept()
	cancelKept()
	// The notifier still works after its watchers left.
	again, cancel := n.Watch("a")
	defer cancel()
	n.Publish("a")
	woken(t, again, "a new watcher of a")
}

// testNotifyRounds takes watches on many goroutines, then publishes every
// id at once from as many: each watch (and each Changed) taken before must
// be woken, every round.
func testNotifyRounds(t *testing.T, n hitl.Notifier) {
	const (
		rounds  = 50
		ids     = 8
		waiters = 4 // per id
	)
	key := func(i int) string { return fmt.Sprintf("q_%d", i) }
	for r := range rounds {
		var (
			mu      sync.Mutex
			chans   []<-chan struct{}
			cancels []func()
			wg      sync.WaitGroup
		)
		for i := range ids {
			for range waiters {
				wg.Go(func() {
					ch, cancel := n.Watch(key(i))
					changed := n.Changed()
					mu.Lock()
					chans, cancels = append(chans, ch, changed), append(cancels, cancel)
					mu.Unlock()
				})
			}
		}
		wg.Wait()
		for i := range ids {
			wg.Go(func() { n.Publish(key(i)) })
		}
		wg.Wait()
		for k, ch := range chans {
			woken(t, ch, fmt.Sprintf("round %d, waiter %d", r, k))
		}
		for _, cancel := range cancels {
			cancel()
		}
	}
}

// testNotifyNoLostWakeup is the Wait loop many times over, concurrently:
// publishers bump a version per id (the "store") and then publish; each
// waiter watches, reads the version, and waits only if it has not yet
// reached the last one. A wake-up lost between Watch and the read leaves
// a waiter blocked past the deadline.
func testNotifyNoLostWakeup(t *testing.T, n hitl.Notifier) {
	const (
		ids      = 8
		versions = 200
		waiters  = 4 // per id, and as many on Changed
	)
	var (
		version [ids]atomic.Int64
		total   atomic.Int64
		wg      sync.WaitGroup
		failed  atomic.Value
	)
	key := func(i int) string { return fmt.Sprintf("q_%d", i) }
	deadline := time.After(wakeWithin)
	fail := func(msg string) { failed.CompareAndSwap(nil, msg) }
	for i := range ids {
		for range waiters {
			wg.Go(func() {
				for {
					ch, cancel := n.Watch(key(i))
					if version[i].Load() == versions {
						cancel()
						return
					}
					select {
					case <-ch:
						cancel()
					case <-deadline:
						cancel()
						fail(fmt.Sprintf("a watcher of %s missed a change (at %d of %d)", key(i), version[i].Load(), versions))
						return
					}
				}
			})
		}
	}
	for range waiters {
		wg.Go(func() {
			for {
				ch := n.Changed()
				if total.Load() == ids*versions {
					return
				}
				select {
				case <-ch:
				case <-deadline:
					fail(fmt.Sprintf("a Changed waiter missed a change (at %d of %d)", total.Load(), ids*versions))
					return
				}
			}
		})
	}
	var publishers sync.WaitGroup
	for i := range ids {
		publishers.Go(func() {
			for range versions {
				version[i].Add(1)
				total.Add(1)
				n.Publish(key(i))
			}
		})
	}
	publishers.Wait()
	wg.Wait()
	if msg := failed.Load(); msg != nil {
		t.Fatal(msg)
	}
}
