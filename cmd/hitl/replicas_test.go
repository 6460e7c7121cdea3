package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The PostgreSQL tests start one throwaway cluster for this binary
// (internal/pgtest), on first use.
func TestMain(m *testing.M) { pgtest.Main(m) }

// keyFile writes a sealing key file the replicas share.
func keyFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hitl.key")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("5a", 32)+"\n"), 0o600))
	return path
}

// startReplica runs a replica of hitl serve on the PostgreSQL database
// at url.
func startReplica(t *testing.T, url, key string, mutate ...func(*config.Config, *Main)) *Main {
	t.Helper()
	return startMain(t, append([]func(*config.Config, *Main){func(c *config.Config, _ *Main) { c.DB, c.SealKeyFile = url, key }}, mutate...)...)
}

// unlimited turns the question rate limits off (tests that ask in bursts).
func unlimited(c *config.Config, _ *Main) {
	c.RateLimits.TokenPerMinute, c.RateLimits.RunPerMinute = 0, 0
}

func TestReplicasOnPostgres(t *testing.T) {
	url, key := pgtest.DB(t), keyFile(t)
	r1, r2, r3 := startReplica(t, url, key), startReplica(t, url, key), startReplica(t, url, key)
	ctx := principaltest.As(context.Background(), "admin:test")

	t.Run("an agent blocked on replica 1 is answered through replica 2", func(t *testing.T) {
		asked := startCLI(ctx, r1, strings.NewReader(""), "ask", "Which database?", "--options", "prod,staging", "--run", "rep")
		q := waitPending(t, r2, "rep") // replica 2 learns of it by NOTIFY
		answered := cli(ctx, r2, "", "answer", q.ID, "staging")
		require.Equal(t, 0, answered.code, answered.stderr)
		r := result(t, asked)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "staging\n", r.stdout, "woken on replica 1 by the answer given on replica 2")

		again := cli(ctx, r3, "", "answer", q.ID, "prod")
		assert.Equal(t, exitConflict, again.code, "replica 3 sees the first answer")
	})

	t.Run("a paused checkpoint on replica 1 is resumed from replica 2", func(t *testing.T) {
		checkpointOut(t, cli(ctx, r1, "", "checkpoint", "--run", "loop-rep", "--iter", "1", "--max", "3", "--model", "haiku"))
		p := cli(ctx, r2, "", "pause", "loop-rep")
		require.Equal(t, 0, p.code, p.stderr)
		ch := startCLI(ctx, r1, strings.NewReader(""), "checkpoint", "--run", "loop-rep", "--iter", "2", "--max", "3", "--model", "haiku")
		untilLogged(t, r3, "the paused loop's report of iteration 2, seen on replica 3", reported("loop-rep", 2))
		select {
		case r := <-ch:
			t.Fatalf("checkpoint returned while paused: %+v", r)
		default:
		}
		res := cli(ctx, r2, "", "resume", "loop-rep")
		require.Equal(t, 0, res.code, res.stderr)
		assert.Equal(t, steer.RunRunning, checkpointOut(t, result(t, ch)).Status, "held on replica 1, released from replica 2")
	})

	t.Run("a policy set through replica 1 decides on replica 2 once its NOTIFY arrives", func(t *testing.T) {
		agent := principaltest.As(context.Background(), "api:agent")
		op := hitl.Operation{Type: hitl.OpShell, Description: "check the tree", Resource: "git status"}
		_, err := r1.Service.Policies.SetPolicy(principaltest.As(context.Background(), "admin:root"),
			[]hitl.Rule{{Name: "safe-git", OpType: hitl.OpShell, Resource: "git status", Effect: hitl.EffectAllow}})
		require.NoError(t, err)
		deadline := time.After(10 * time.Second)
		for {
			changed := r2.Service.Log.Changed()
			d, err := r2.Service.Policies.Decide(agent, op)
			require.NoError(t, err)
			if d.Effect == hitl.EffectAllow {
				break
			}
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("replica 2 still decides %s by %s", d.Effect, d.Rule)
			}
		}
	})

	t.Run("a sensitive answer given on replica 3 is received on replica 1", func(t *testing.T) {
		agent := principaltest.As(context.Background(), "api:agent")
		person := principaltest.As(context.Background(), "admin:person")
		q, _, err := r1.Service.Questions.Create(agent, "secret-rep", hitl.NewQuestion{Question: "Token?", Sensitive: true})
		require.NoError(t, err)
		_, err = r3.Service.Questions.Answer(person, q.ID, hitl.Response{Value: "s3cret"})
		require.NoError(t, err)
		stored, err := r2.DB.Question(context.Background(), q.ID)
		require.NoError(t, err)
		require.NotNil(t, stored.Response.Sealed, "the database holds it sealed")
		got, err := r1.Service.Questions.Receive(agent, q.ID)
		require.NoError(t, err)
		assert.Equal(t, "s3cret", got.Response.Value, "sealed on replica 3, opened on replica 1 with the shared key")
	})
}

func TestServeOnPostgresNeedsASealKey(t *testing.T) {
	url := pgtest.DB(t)
	var out, errb syncBuffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code := run(context.Background(), []string{"serve", "--db", url, "--listen", "127.0.0.1:0"}, e)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errb.String(), "seal_key_file (HITL_SEAL_KEY_FILE) is required with a PostgreSQL database")

	bad := filepath.Join(t.TempDir(), "short.key")
	require.NoError(t, os.WriteFile(bad, []byte("abcd\n"), 0o600))
	errb = syncBuffer{}
	e.getenv = func(k string) string {
		if k == "HITL_SEAL_KEY_FILE" {
			return bad
		}
		return ""
	}
	code = run(context.Background(), []string{"serve", "--db", url, "--listen", "127.0.0.1:0"}, e)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errb.String(), "seal_key_file (HITL_SEAL_KEY_FILE) "+bad)
}

// While the database is down, /healthz and the API answer 503 with a
// code; once it is back the replica recovers by itself.
func TestReplicaWhileTheDatabaseIsDown(t *testing.T) {
	url, key := pgtest.DB(t), keyFile(t)
	m := startReplica(t, url, key)
	get := func(path string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, m.URL()+path, nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, _ := get("/healthz")
	require.Equal(t, http.StatusOK, code)

	c := pgtest.Start(t)
	require.NoError(t, c.Down())
	downFor := time.Now()
	code, body := get("/healthz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, `"code":"unavailable"`)
	code, body = get("/api/questions/pending")
	assert.Equal(t, http.StatusServiceUnavailable, code, body)
	assert.Contains(t, body, `"code":"unavailable"`)
	require.NoError(t, c.Up())
	t.Logf("database down for %s", time.Since(downFor).Round(time.Millisecond))

	// The pool connects again by itself: /healthz turns 200 within a bound.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if code, _ := get("/healthz"); code == http.StatusOK {
			break
		}
		require.True(t, time.Now().Before(deadline), "/healthz did not recover")
		<-time.After(50 * time.Millisecond) // an external process's state: polled with a deadline
	}
	ctx := principaltest.As(context.Background(), "admin:test")
	asked := startCLI(ctx, m, strings.NewReader(""), "ask", "Still there?", "--run", "after-restart")
	q := waitPending(t, m, "after-restart")
	require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "yes").code)
	assert.Equal(t, "yes\n", result(t, asked).stdout, "asked and answered after the database came back")
}
