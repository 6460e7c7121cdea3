package main

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rateLimitedOnce answers the first request to path with 429 and
// Retry-After: 7, then lets every request through.
func rateLimitedOnce(p *frontProxy, path string) *atomic.Int32 {
	var refused atomic.Int32
	p.intercept(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != path || !refused.CompareAndSwap(0, 1) {
			return false
		}
		w.Header().Set("Retry-After", "7")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"code":"rate_limited","message":"slow down"}`))
		return true
	})
	return &refused
}

// rateTimer is an injected time.After: the --wait budget never fires;
// every other wait (Retry-After) is reported on waited and fires at once.
type rateTimer struct {
	budget time.Duration
	waited chan time.Duration
}

func (r rateTimer) after(d time.Duration) <-chan time.Time {
	if d == r.budget {
		return make(chan time.Time)
	}
	r.waited <- d
	ch := make(chan time.Time, 1)
	ch <- time.Now()
	return ch
}

// A hook that is rate limited waits Retry-After and asks again, within
// its --wait, instead of leaving the decision to the terminal at once.
func TestHookWaitsOutARateLimit(t *testing.T) {
	for _, agentName := range []string{"claude", "codex"} {
		t.Run(agentName, func(t *testing.T) {
			m := startMain(t, hookPolicy)
			ctx := context.Background()
			proxy := newFrontProxy(t, m.URL())
			refused := rateLimitedOnce(proxy, "/api/approvals")
			timer := rateTimer{budget: 9 * time.Minute, waited: make(chan time.Duration, 4)}
			file := map[string]string{"claude": "claude_pretooluse_bash.json", "codex": "codex_permissionrequest_bash.json"}[agentName]
			ev := hookEvent(t, file, map[string]any{"session_id": "rl-" + agentName,
				"tool_input": map[string]any{"command": "npm run migrate -- --env staging"}})
			ch := hookRun(ctx, m, cliOpts{url: proxy.srv.URL, after: timer.after}, ev, agentName, "--wait", "9m")
			q := awaitPending(t, m, agentName+"-rl-"+agentName, 1)[0]
			assert.Equal(t, int32(1), refused.Load(), "the first request was refused")
			select {
			case d := <-timer.waited:
				assert.Equal(t, 7*time.Second, d, "it waited Retry-After")
			default:
				t.Fatal("the hook asked again without waiting")
			}
			require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve").code)
			d := decoded(t, result(t, ch))
			if agentName == "claude" {
				assert.Equal(t, "allow", d.PermissionDecision)
			} else {
				require.NotNil(t, d.Decision)
				assert.Equal(t, "allow", d.Decision.Behavior)
			}
		})
	}
}
