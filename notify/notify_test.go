package notify_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/storetest"
	"github.com/hitlbot/hitl/notify"
)

var _ hitl.Notifier = (*notify.Local)(nil)

func TestNotifierContract(t *testing.T) {
	storetest.RunNotifier(t, func(*testing.T) hitl.Notifier { return notify.New() })
}

func TestCancelForgets(t *testing.T) {
	l := notify.New()
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			for j := range 100 {
				id := fmt.Sprintf("q_%d", (i+j)%7)
				_, cancel := l.Watch(id)
				if j%3 == 0 {
					l.Publish(id)
				}
				cancel()
				cancel()
			}
		})
	}
	wg.Wait()
	ids, chans := notify.Watching(l)
	if ids != 0 || chans != 0 {
		t.Fatalf("after every cancel: %d ids, %d channels still watched", ids, chans)
	}
}

func TestPublishForgetsTheWoken(t *testing.T) {
	l := notify.New()
	for range 10 {
		l.Watch("a")
	}
	l.Publish("a")
	if ids, chans := notify.Watching(l); ids != 0 || chans != 0 {
		t.Fatalf("after the publish: %d ids, %d channels still watched", ids, chans)
	}
}

func TestCancelledIsNotWoken(t *testing.T) {
	l := notify.New()
	ch, cancel := l.Watch("a")
	cancel()
	l.Publish("a")
	select {
	case <-ch:
		t.Fatal("a cancelled watch was woken")
	default:
	}
}

func TestWakeAllWakesEveryWatcher(t *testing.T) {
	l := notify.New()
	a, cancelA := l.Watch("a")
	defer cancelA()
	b, cancelB := l.Watch("b")
	defer cancelB()
	changed := l.Changed()
	l.WakeAll()
	for name, ch := range map[string]<-chan struct{}{"a": a, "b": b, "Changed": changed} {
		select {
		case <-ch:
		default:
			t.Errorf("%s: not woken", name)
		}
	}
	if ids, chans := notify.Watching(l); ids != 0 || chans != 0 {
		t.Errorf("after WakeAll %d ids and %d channels are still watched", ids, chans)
	}
}
