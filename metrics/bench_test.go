package metrics_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/stretchr/testify/require"
)

// BenchmarkScrape is one GET /metrics at 100 and at 100,000 questions
// stored (a tenth of them settled): the scrape reads memory only, so its
// cost does not grow with the questions.
func BenchmarkScrape(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		b.Run(fmt.Sprintf("questions=%d", n), func(b *testing.B) {
			w := newWorld(b, memstore.New())
			types := hitl.QuestionTypes
			for i := range n {
				typ := types[i%len(types)]
				nq := hitl.NewQuestion{Question: "Go on?", Type: typ}
				if typ == hitl.NonBlocking {
					nq.DefaultResponse = &hitl.Response{Value: "yes"}
				}
				q, _, err := w.svc.Questions.Create(agent, fmt.Sprintf("run-%d", i%100), nq)
				require.NoError(b, err)
				if i%10 == 0 {
					_, err = w.svc.Questions.Answer(ops, q.ID, hitl.Response{Value: "yes"})
					require.NoError(b, err)
				}
			}
			require.NoError(b, w.m.Sync(context.Background()))
			h := w.m.Handler()
			req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
			b.ReportAllocs()
			for b.Loop() {
				rec := &discard{header: http.Header{}}
				h.ServeHTTP(rec, req)
				if rec.status != 0 && rec.status != http.StatusOK {
					b.Fatalf("scrape: %d", rec.status)
				}
			}
		})
	}
}

type discard struct {
	header http.Header
	status int
}

func (d *discard) Header() http.Header         { return d.header }
func (d *discard) WriteHeader(s int)           { d.status = s }
func (d *discard) Write(p []byte) (int, error) { return io.Discard.Write(p) }
