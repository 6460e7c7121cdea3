package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// immediately is an injected time.After whose waits end at once: retries
// against a restarting service go round without real waits.
func immediately(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- time.Now()
	return ch
}

// restartBehind starts a service on a temp database behind a front proxy
// (the address the commands use), and returns it, the proxy, and a
// function that restarts the service on the same database once a request
// whose path ends in suffix has reached it.
func restartBehind(t *testing.T, suffix string) (*Main, *frontProxy, func() *Main) {
	t.Helper()
	at := dbFile(t)
	first := startMainNoCleanup(t, at)
	proxy := newFrontProxy(t, first.URL())
	arrived := make(chan struct{}, 1)
	proxy.intercept(func(_ http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, suffix) {
			select {
			case arrived <- struct{}{}:
			default:
			}
		}
		return false
	})
	restart := func() *Main {
		t.Helper()
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatalf("no request to …%s reached the service", suffix)
		}
		require.NoError(t, first.Close())
		second := startMainNoCleanup(t, at)
		t.Cleanup(func() { require.NoError(t, second.Close()) })
		proxy.setBackend(t, second.URL())
		return second
	}
	return first, proxy, restart
}

// steerAs sends command to run on m as an admin.
func steerAs(t *testing.T, m *Main, c steer.Command, run string) {
	t.Helper()
	ctx := principaltest.As(context.Background(), "admin:test")
	_, err := m.Service.Runs.Control(ctx, steer.NewRequest(uuid.NewString(), c, run, time.Now(), steer.ControlPayload{}))
	require.NoError(t, err)
}

// hitl checkpoint blocked on a paused run keeps waiting across a restart
// of the service, and returns once the restarted service resumes it.
func TestCheckpointWaitsAcrossARestart(t *testing.T) {
	const run = "cp-restart"
	first, proxy, restart := restartBehind(t, "/checkpoint")
	ctx := context.Background()
	r := cli(ctx, first, "", "checkpoint", "--run", run, "--iter", "1")
	require.Equal(t, 0, r.code, r.stderr)
	steerAs(t, first, steer.CommandPause, run)

	ch := startCLIWith(ctx, first, cliOpts{url: proxy.srv.URL, after: immediately}, "checkpoint", "--run", run, "--iter", "2")
	second := restart()
	steerAs(t, second, steer.CommandResume, run)
	r = result(t, ch)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"status":"running"`)
}

// hitl run's watch outlives a restart of the service: a cancel sent to the
// restarted service stops the command.
func TestRunWatchesAcrossARestart(t *testing.T) {
	const run = "run-restart"
	_, proxy, restart := restartBehind(t, "/api/runs/"+run)
	ctx := context.Background()
	ch := startCLIWith(ctx, nil, cliOpts{url: proxy.srv.URL, after: immediately}, "run", "--run", run, "--grace", "1s", "--", "sleep", "60")
	second := restart()
	steerAs(t, second, steer.CommandCancel, run)
	r := result(t, ch)
	assert.Equal(t, exitCancelled, r.code, r.stderr)
	assert.Contains(t, r.stderr, "was cancelled")
}
