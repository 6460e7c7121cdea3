package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The database crashes (immediate shutdown) and comes back while two
// replicas take creates and answers from 8 clients: every create and
// answer the API acknowledged is there afterwards, and the replicas serve
// again by themselves.
func TestDatabaseRestartUnderLoad(t *testing.T) {
	url, key := pgtest.DB(t), keyFile(t)
	r1, r2 := startReplica(t, url, key, unlimited), startReplica(t, url, key, unlimited)
	c := pgtest.Start(t)
	ctx := principaltest.As(context.Background(), "admin:test")

	var mu sync.Mutex
	created := map[string]bool{} // acknowledged creates → answer acknowledged
	failures := 0
	acks := 0
	going := make(chan struct{}) // closed once the load is well under way
	var goingOnce sync.Once
	// work runs n operations per client against alternating replicas.
	work := func(phase string, n int) {
		var wg sync.WaitGroup
		for w := range 8 {
			api := client.NewClient(r1.URL(), "")
			if w%2 == 1 {
				api = client.NewClient(r2.URL(), "")
			}
			wg.Go(func() {
				for i := range n {
					q, _, err := api.Create(ctx, fmt.Sprintf("load-%d", w), hitl.NewQuestion{Question: fmt.Sprintf("%s %d.%d?", phase, w, i)})
					mu.Lock()
					if err != nil {
						failures++
						assert.Equal(t, fault.EUNAVAILABLE, fault.Code(err), "a failed create says unavailable: %v", err)
					} else {
						created[q.ID] = false
						if acks++; acks == 200 {
							goingOnce.Do(func() { close(going) })
						}
					}
					mu.Unlock()
					if err != nil || i%2 == 1 {
						continue
					}
					_, err = api.Answer(ctx, q.ID, hitl.Response{Value: "ok"})
					mu.Lock()
					if err == nil {
						created[q.ID] = true
					} else {
						failures++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}

	var down sync.WaitGroup
	down.Go(func() {
		work("during", 60) // the crash comes in the middle: some acknowledged, some refused
	})
	select {
	case <-going:
	case <-time.After(60 * time.Second): // a loaded CI machine; never a wait of its own
		t.Fatal("the load did not get under way")
	}
	require.NoError(t, c.Down())
	down.Wait()
	require.NoError(t, c.Up())
	work("after", 20)
	t.Logf("%d acknowledged creates, %d refused operations", len(created), failures)

	check := startReplica(t, url, key)
	for id, answered := range created {
		q, err := check.DB.Question(context.Background(), id)
		if !assert.NoError(t, err, "acknowledged question %s is gone", id) {
			continue
		}
		if answered {
			assert.Equal(t, hitl.StatusAnswered, q.Status, "question %s's acknowledged answer is gone", id)
		}
	}
	n, err := check.DB.CountQuestions(context.Background(), hitl.StatusPending)
	require.NoError(t, err)
	m, err := check.DB.CountQuestions(context.Background(), hitl.StatusAnswered)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, n+m, len(created))
}
