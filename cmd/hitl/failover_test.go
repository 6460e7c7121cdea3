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
	m := startMain(t, hookPolicy)
	ctx := principaltest.As(context.Background(), "admin:test")

	t.Run("a replica that refuses connections is skipped", func(t *testing.T) {
		r := cliWith(t, ctx, m, cliOpts{url: "http://127.0.0.1:1," + m.URL()}, "ask", "Colour?", "--run", "fo-list", "--no-wait")
		assert.Equal(t, exitNeedsInput, r.code, r.stderr)
		assert.NotContains(t, r.stderr, "cannot reach")
	})

	t.Run("hitl ask waiting through a front that dies carries on through the next", func(t *testing.T) {
		urls, kill := twoFronts(t, m)
		asked := startCLIWith(ctx, m, cliOpts{url: urls}, "ask", "Which database?", "--run", "fo-wait")
		q := waitPending(t, m, "fo-wait")
		kill()

		r := cli(ctx, m, "", "answer", q.ID, "staging")
		require.Equal(t, 0, r.code, r.stderr)
		got := result(t, asked)
		assert.Equal(t, 0, got.code, got.stderr)
		assert.Equal(t, "staging\n", got.stdout)
	})

	t.Run("hitl hook claude waiting through a front that dies carries on through the next", func(t *testing.T) {
		urls, kill := twoFronts(t, m)
		ch := hookRun(ctx, m, cliOpts{url: urls}, hookEvent(t, "claude_pretooluse_bash.json", map[string]any{"session_id": "fo-hook"}), "claude")
		q := awaitPending(t, m, "claude-fo-hook", 1)[0]
		kill()
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve").code)
		d := decoded(t, result(t, ch))
		assert.Equal(t, "allow", d.PermissionDecision)
		assert.Len(t, awaitAll(t, m, "claude-fo-hook"), 1, "asked once")
	})
}

// twoFronts puts two front doors before m, as two replicas over one
// database are to an agent, and returns HITL_URL listing both and a kill
// of the first that waits until a long poll is held through it, then cuts
// it and every connection.
func twoFronts(t *testing.T, m *Main) (string, func()) {
	t.Helper()
	first, second := newFrontProxy(t, m.URL()), newFrontProxy(t, m.URL())
	held := make(chan struct{}, 1)
	first.intercept(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/questions/") && r.URL.Query().Get("wait") != "" {
			select {
			case held <- struct{}{}:
			default:
			}
		}
		return false
	})
	kill := func() {
		t.Helper()
		select {
		case <-held:
		case <-time.After(10 * time.Second):
			t.Fatal("nothing waited through the first front")
		}
		first.srv.Listener.Close()
		first.srv.CloseClientConnections()
	}
	return first.srv.URL + "," + second.srv.URL, kill
}
