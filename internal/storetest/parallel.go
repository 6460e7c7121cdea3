package storetest

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Parallel runs fn(0) … fn(n-1) on 16 goroutines, so that writes through
// the service share bbolt commits (fixtures of thousands of questions
// build in seconds), and fails tb with the first error.
func Parallel(tb testing.TB, n int, fn func(i int) error) {
	tb.Helper()
	const workers = 16
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for range workers {
		wg.Go(func() {
			for i := range next {
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	require.NoError(tb, first)
}
