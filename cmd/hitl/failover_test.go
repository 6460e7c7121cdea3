package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// HITL_URL may list several URLs: the CLI moves to the next when one stops
// answering, and a wait in progress carries on there.
func TestHitlURLList(t *testing.T) {
	m := startMain(t)
	ctx := principaltest.As(context.Background(), "admin:test")

	t.Run("a replica that refuses connections is skipped", func(t *testing.T) {
		r := cliWith(t, ctx, m, cliOpts{url: "http://127.0.0.1:1," + m.URL()}, "ask", "Colour?", "--run", "fo-list", "--no-wait")
		assert.Equal(t, exitNeedsInput, r.code, r.stderr)
		assert.NotContains(t, r.stderr, "cannot reach")
	})

	t.Run("hitl ask waiting through a front that dies carries on through the next", func(t *testing.T) {
		// Two front doors to one service, as two replicas over one
		// database are to an agent.
		first, second := newFrontProxy(t, m.URL()), newFrontProxy(t, m.URL())
		entered := make(chan struct{}, 1)
		first.intercept(func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/questions/") {
				select {
				case entered <- struct{}{}:
				default:
				}
			}
			return false
		})
		asked := startCLIWith(ctx, m, cliOpts{url: first.srv.URL + "," + second.srv.URL}, "ask", "Which database?", "--run", "fo-wait")
		q := waitPending(t, m, "fo-wait")
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("hitl ask never waited through the first front")
		}
		first.srv.Listener.Close()
		first.srv.CloseClientConnections()

		r := cli(ctx, m, "", "answer", q.ID, "staging")
		require.Equal(t, 0, r.code, r.stderr)
		got := result(t, asked)
		assert.Equal(t, 0, got.code, got.stderr)
		assert.Equal(t, "staging\n", got.stdout)
	})
}
