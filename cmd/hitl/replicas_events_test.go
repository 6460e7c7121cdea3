package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// streamIDs opens GET /api/events on m after seq and yields the id of
// every event it sends.
func streamIDs(t *testing.T, ctx context.Context, m *Main, after uint64) <-chan uint64 {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.URL()+"/api/events", nil)
	require.NoError(t, err)
	req.Header.Set("Last-Event-ID", strconv.FormatUint(after, 10))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	ch := make(chan uint64, 1024)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
				n, err := strconv.ParseUint(v, 10, 64)
				if err == nil {
					ch <- n
				}
			}
		}
	}()
	return ch
}

// Every event stream on any replica sees every event once, in order,
// whichever replica wrote it, and resumes on another replica with
// Last-Event-ID.
func TestEventStreamsAcrossReplicas(t *testing.T) {
	url, key := pgtest.DB(t), keyFile(t)
	r1, r2, r3 := startReplica(t, url, key, unlimited), startReplica(t, url, key), startReplica(t, url, key)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ids := streamIDs(t, ctx, r2, 0)

	agent := principaltest.As(context.Background(), "api:agent")
	person := principaltest.As(context.Background(), "admin:person")
	for i := range 10 {
		q, _, err := r1.Service.Questions.Create(agent, "stream", hitl.NewQuestion{Question: fmt.Sprintf("Q%d?", i)})
		require.NoError(t, err)
		_, err = r3.Service.Questions.Answer(person, q.ID, hitl.Response{Value: "yes"})
		require.NoError(t, err)
	}
	last, err := r1.DB.LastSeq(ctx)
	require.NoError(t, err)
	read := func(ch <-chan uint64, until uint64) []uint64 {
		t.Helper()
		var got []uint64
		for len(got) == 0 || got[len(got)-1] < until {
			select {
			case id, ok := <-ch:
				require.True(t, ok, "the stream ended after %v", got)
				got = append(got, id)
			case <-ctx.Done():
				t.Fatalf("the stream stopped at %v, before %d", got, until)
			}
		}
		return got
	}
	want := func(from, to uint64) []uint64 {
		var out []uint64
		for s := from; s <= to; s++ {
			out = append(out, s)
		}
		return out
	}
	assert.Equal(t, want(1, last), read(ids, last), "replica 2 streams what replicas 1 and 3 wrote, each once, in order")
	resumed := streamIDs(t, ctx, r3, last/2)
	assert.Equal(t, want(last/2+1, last), read(resumed, last), "resumed on replica 3 after the event replica 2 sent")
}
