package api

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/store"
	"github.com/stretchr/testify/require"
)

// boltEnv is a server over a bbolt store in a temp dir, on 127.0.0.1.
type boltEnv struct {
	db   *store.DB
	svc  *service.Service
	base string
}

func newBoltEnv(tb testing.TB) *boltEnv {
	tb.Helper()
	db, err := store.Open(filepath.Join(tb.TempDir(), "hitl.db"))
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, db.Close()) })
	svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New()})
	srv := NewServer(servicesOf(svc), ServerConfig{Logger: discard})
	tb.Cleanup(srv.Close)
	ts := httptest.NewServer(srv)
	tb.Cleanup(ts.Close)
	return &boltEnv{db: db, svc: svc, base: ts.URL}
}

func TestPagingExactness(t *testing.T) {
	const before, inserted, limit = 150, 50, 7
	for _, l := range []struct{ name, path string }{
		{"pending", "/api/questions/pending"},
		{"all", "/api/questions"},
		{"job", "/api/jobs/job-1/questions"},
	} {
		path := l.path
		t.Run(l.name+"_lists_every_question_once_across_concurrent_inserts", func(t *testing.T) {
			e := newBoltEnv(t)
			existing := createMany(t, e.svc.Questions, "job-1", before, 8)

			// The inserter adds one question per page the pager reads
			// (and the pager waits for it), so inserts land between and
			// during page reads.
			turn := make(chan struct{})
			done := make(chan error, 1)
			go func() {
				ctx := principaltest.As(context.Background(), "api:test")
				for range turn {
					_, _, err := e.svc.Questions.Create(ctx, "job-1", textQ)
					if err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			seen := map[string]int{}
			cursor, pages := "", 0
			for {
				if pages < inserted {
					turn <- struct{}{}
				}
				q := url.Values{"limit": {fmt.Sprint(limit)}}
				if cursor != "" {
					q.Set("cursor", cursor)
				}
				r := callURL(t, "GET", e.base+path+"?"+q.Encode(), "")
				require.Equal(t, 200, r.status, r.raw)
				pages++
				list := r.body["questions"].([]any)
				require.LessOrEqual(t, len(list), limit)
				for _, v := range list {
					seen[v.(map[string]any)["id"].(string)]++
				}
				next, _ := r.body["nextCursor"].(string)
				if next == "" {
					break
				}
				cursor = next
			}
			close(turn)
			require.NoError(t, recv(t, done))
			for id, n := range seen {
				require.Equal(t, 1, n, "%s was listed %d times", id, n)
			}
			for _, id := range existing {
				require.Contains(t, seen, id, "%s existed before paging began and was not listed", id)
			}
			require.Greater(t, pages, before/limit)
		})
	}
}
