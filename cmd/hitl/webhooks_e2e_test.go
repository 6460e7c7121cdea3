package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/hitlbot/hitl/observe"
	"github.com/hitlbot/hitl/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The secrets of the end-to-end tests: a rotation (new, then old).
const (
	newSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	oldSecret = "whsec_dGhlIG9sZCBzZWNyZXQgZHVyaW5nIGEgcm90YXRpb24="
)

// receivedDelivery is what the node receiver reports of a request.
type receivedDelivery struct {
	Event            string         `json:"event"`
	Port             int            `json:"port"`
	ID               string         `json:"id"`
	Timestamp        string         `json:"timestamp"`
	Signatures       int            `json:"signatures"`
	Verified         bool           `json:"verified"`
	TamperedRejected bool           `json:"tamperedRejected"`
	OldRejected      bool           `json:"oldRejected"`
	Status           int            `json:"status"`
	Body             map[string]any `json:"body"`
}

// nodeReceiver starts webhook/testdata/receiver.mjs, which verifies each
// delivery with the standardwebhooks npm package under secret and
// answers the statuses of answers in turn. It skips without node.
func nodeReceiver(t *testing.T, secret, answers string) (url string, got <-chan receivedDelivery) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: webhooks are verified end to end with the standardwebhooks npm package (Node.js 18+)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "webhook", "testdata"))
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "standardwebhooks")); err != nil {
		npm, err := exec.LookPath("npm")
		require.NoError(t, err, "standardwebhooks is not installed in %s and npm is missing: run npm ci there", dir)
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "npm ci in %s: %s", dir, out)
	}
	cmd := exec.Command(node, filepath.Join(dir, "receiver.mjs"))
	cmd.Env = append(os.Environ(), "WEBHOOK_SECRET="+secret, "ANSWERS="+answers)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	ch := make(chan receivedDelivery, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var d receivedDelivery
			if json.Unmarshal(sc.Bytes(), &d) == nil {
				ch <- d
			}
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("receiver stderr:\n%s", stderr.String())
		}
	})
	first := nextDelivery(t, ch)
	require.Equal(t, "listening", first.Event)
	return "http://127.0.0.1:" + strconv.Itoa(first.Port), ch
}

func nextDelivery(t *testing.T, ch <-chan receivedDelivery) receivedDelivery {
	t.Helper()
	select {
	case d, ok := <-ch:
		require.True(t, ok, "the receiver stopped")
		return d
	case <-time.After(30 * time.Second): // a deadline, never a wait of its own
		t.Fatal("no delivery in 30 s")
		return receivedDelivery{}
	}
}

// writeSecret writes a secret file in the test's temp dir.
func writeSecret(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

// apiCall sends a JSON request to m's API and decodes the answer into out.
func apiCall(t *testing.T, m *Main, method, path string, body, out any) int {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, m.URL()+path, r)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if out != nil {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(out))
	}
	return resp.StatusCode
}

// TestWebhooksEndToEnd: a question with a callbackUrl, answered through
// the API, reaches a receiver that verifies it with the standardwebhooks
// library (signed with both secrets of a rotation); a tampered body or an
// old timestamp fails there. A configured endpoint gets it too. Secrets
// never reach the log or the operator's commands.
func TestWebhooksEndToEnd(t *testing.T) {
	url, got := nodeReceiver(t, newSecret, "200")
	var logs syncBuffer
	m := startMain(t, func(c *config.Config, m *Main) {
		c.Webhooks.AllowedHosts = []string{"127.0.0.1", "10.0.0.1"}
		c.Webhooks.CallbackSecretFile = writeSecret(t, newSecret+"\n"+oldSecret+"\n")
		c.Webhooks.Endpoints = []config.Webhook{{Name: "ops", URL: url + "/ops", SecretFile: writeSecret(t, newSecret),
			Events: []string{"question.answered"}, Runs: "deploy-*"}}
		m.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	ctx := context.Background()

	var asked struct{ QuestionID string }
	require.Equal(t, http.StatusCreated, apiCall(t, m, "POST", "/api/jobs/deploy-1/questions",
		map[string]any{"question": "Deploy to production?", "responseType": "boolean", "callbackUrl": url + "/resume?run=deploy-1"}, &asked))
	require.Equal(t, http.StatusOK, apiCall(t, m, "POST", "/api/questions/"+asked.QuestionID+"/answer", map[string]any{"response": map[string]any{"type": "boolean", "value": true}}, nil))

	byPath := map[string]receivedDelivery{}
	for range 2 {
		d := nextDelivery(t, got)
		assert.True(t, d.Verified, "standardwebhooks verifies it: %+v", d)
		assert.True(t, d.TamperedRejected, "a tampered body fails")
		assert.True(t, d.OldRejected, "an old timestamp fails")
		assert.Equal(t, "question.answered", d.Body["type"])
		data := d.Body["data"].(map[string]any)
		assert.Equal(t, asked.QuestionID, data["id"])
		assert.Equal(t, "answered", data["status"])
		byPath[strconv.Itoa(d.Signatures)] = d
	}
	require.Contains(t, byPath, "2", "the callback is signed with both secrets of the rotation")
	require.Contains(t, byPath, "1", "the endpoint with its one")
	assert.Equal(t, byPath["1"].ID, byPath["2"].ID, "one webhook-id per event")

	t.Run("a callbackUrl that is not allowed is refused before anything is stored", func(t *testing.T) {
		for _, c := range []struct{ url, says string }{
			{"https://evil.example/x", "webhooks_allowed_hosts"},
			{"https://10.0.0.1/x", "webhooks_allow_private"},
			{"ftp://127.0.0.1/x", "scheme"},
			{"http://10.0.0.1/x", "webhooks_allow_http"},
		} {
			var e struct{ Code, Message string }
			require.Equal(t, http.StatusBadRequest, apiCall(t, m, "POST", "/api/jobs/refused-1/questions",
				map[string]any{"question": "Go?", "callbackUrl": c.url}, &e), c.url)
			assert.Equal(t, fault.EINVALID, e.Code)
			assert.Contains(t, e.Message, c.says)
			require.Equal(t, http.StatusBadRequest, apiCall(t, m, "POST", "/api/approvals",
				map[string]any{"opType": "shell", "resource": "rm -rf /", "runId": "refused-1", "callbackUrl": c.url}, &e), c.url)
		}
		var page struct{ Questions []any }
		apiCall(t, m, "GET", "/api/jobs/refused-1/questions", nil, &page)
		assert.Empty(t, page.Questions)
	})

	t.Run("operators list, test and replay", func(t *testing.T) {
		settled(t, m, 2)
		list := cli(ctx, m, "", "webhooks", "list")
		require.Equal(t, 0, list.code, list.stderr)
		assert.Regexp(t, `ops\s+`+url+`/ops\s+question.answered\s+deploy-\*\s+\d{4}-\d\d-\d\d [\d:]+\s+0\s+0`, list.stdout)
		assert.Contains(t, list.stdout, "callback:http://127.0.0.1:")
		ping := cli(ctx, m, "", "webhooks", "test", "ops")
		require.Equal(t, 0, ping.code, ping.stderr)
		assert.Contains(t, ping.stdout, "ops answered 200")
		p := nextDelivery(t, got)
		assert.True(t, p.Verified)
		assert.Equal(t, "webhook.ping", p.Body["type"])
		missing := cli(ctx, m, "", "webhooks", "test", "nope")
		assert.Equal(t, exitNotFound, missing.code, missing.stderr)

		ds := cli(ctx, m, "", "webhooks", "deliveries", "--json")
		require.Equal(t, 0, ds.code, ds.stderr)
		var deliveries []hitl.WebhookDelivery
		require.NoError(t, json.Unmarshal([]byte(ds.stdout), &deliveries))
		require.Len(t, deliveries, 2)
		replay := cli(ctx, m, "", "webhooks", "replay", strconv.FormatUint(deliveries[0].Seq, 10))
		require.Equal(t, 0, replay.code, replay.stderr)
		again := nextDelivery(t, got)
		assert.True(t, again.Verified)
		assert.Equal(t, byPath["1"].ID, again.ID, "a replay repeats the webhook-id")
		bad := cli(ctx, m, "", "webhooks", "replay", "x")
		assert.Equal(t, exitUsage, bad.code)
		for _, out := range []string{list.stdout, ds.stdout, ping.stdout, replay.stdout} {
			assert.NotContains(t, out, "MfKQ9r8")
			assert.NotContains(t, out, "dGhlIG9sZ")
		}
	})
	require.NoError(t, m.Close())
	assert.NotContains(t, logs.String(), "MfKQ9r8", "secrets are never logged")
	assert.NotContains(t, logs.String(), "dGhlIG9sZ")
}

// TestWebhookFromSlack: an approval with a callbackUrl, approved with a
// button in (fake) Slack, reaches the receiver, which verifies it with
// the standardwebhooks library.
func TestWebhookFromSlack(t *testing.T) {
	url, got := nodeReceiver(t, newSecret, "200")
	srv := slackfake.New(t, slackfake.FailOnReject())
	e := slackEnvOn(t, srv, 30*time.Second, func(c *config.Config, _ *Main) {
		c.Webhooks.AllowedHosts = []string{"127.0.0.1"}
		c.Webhooks.CallbackSecretFile = writeSecret(t, newSecret)
	})
	q, waiting := e.ask(t, "deploy-7", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval, CallbackURL: url + "/resume"})
	e.click(t, "U0ALICE", e.posted(t, testChannel, q), blocks.ActionApprove)
	e.settled(t, waiting)
	d := nextDelivery(t, got)
	assert.True(t, d.Verified, "%+v", d)
	assert.True(t, d.TamperedRejected)
	assert.True(t, d.OldRejected)
	assert.Equal(t, "question.answered", d.Body["type"])
	data := d.Body["data"].(map[string]any)
	assert.Equal(t, q.ID, data["id"])
	assert.Equal(t, "slack:U0ALICE", data["respondedBy"])
	assert.Equal(t, hitl.Approve, data["response"].(map[string]any)["value"])
}

// settled waits (with a deadline) until n deliveries are delivered: the
// receiver reports a delivery before the worker records its answer.
func settled(t *testing.T, m *Main, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ds, err := m.DB.WebhookDeliveries(context.Background(), hitl.WebhookFilter{Status: hitl.WebhookDelivered})
		require.NoError(t, err)
		if len(ds) >= n {
			return
		}
		require.True(t, time.Now().Before(deadline), "%d of %d deliveries recorded in 30 s", len(ds), n)
		<-time.After(time.Millisecond) // the worker's commit is not announced: look again
	}
}

// TestWebhookFailsAfterTheWindow: a receiver that never answers 2xx gets
// the eight attempts of the schedule (the worker's clock moved through
// it: no waiting), then the delivery is failed, counted in
// hitl_webhook_failures_total and alerted on.
func TestWebhookFailsAfterTheWindow(t *testing.T) {
	var attempts atomic.Int64
	ids := make(chan string, 16)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		ids <- r.Header.Get(webhook.HeaderID)
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer recv.Close()
	clock := clocktest.New(time.Now().Add(time.Minute)) // the service's events are due at once on it
	m := startMain(t, func(c *config.Config, m *Main) {
		c.Webhooks.Endpoints = []config.Webhook{{Name: "ci", URL: recv.URL, SecretFile: writeSecret(t, newSecret), Events: []string{"question.answered"}}}
		m.WebhookTuning = func(w *webhook.Config) {
			w.Clock, w.Every, w.Jitter = clock, 5*time.Millisecond, func() float64 { return 0.5 }
		}
	})
	var asked struct{ QuestionID string }
	require.Equal(t, http.StatusCreated, apiCall(t, m, "POST", "/api/jobs/ci-9/questions", map[string]any{"question": "Go?"}, &asked))
	require.Equal(t, http.StatusOK, apiCall(t, m, "POST", "/api/questions/"+asked.QuestionID+"/answer",
		map[string]any{"response": map[string]any{"type": "text", "value": "yes"}}, nil))
	var first string
	select {
	case first = <-ids:
	case <-time.After(30 * time.Second): // a deadline, never a wait of its own
		t.Fatal("the first attempt was not made")
	}
	recorded := func(n int) { // the worker records an attempt after the receiver saw it
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			ds, err := m.DB.WebhookDeliveries(context.Background(), hitl.WebhookFilter{})
			require.NoError(t, err)
			if len(ds) == 1 && ds[0].Attempts == n {
				return
			}
			require.True(t, time.Now().Before(deadline), "attempt %d was not recorded", n)
			<-time.After(time.Millisecond) // the worker's commit is not announced: look again
		}
	}
	for i, wait := range webhook.Schedule {
		recorded(i + 1)
		clock.Add(wait)
		select {
		case id := <-ids:
			require.Equal(t, first, id, "attempt %d repeats the webhook-id", i+2)
		case <-time.After(30 * time.Second): // a deadline, never a wait of its own
			t.Fatalf("attempt %d was not made", i+2)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ds, err := m.DB.WebhookDeliveries(context.Background(), hitl.WebhookFilter{Status: hitl.WebhookFailed})
		require.NoError(t, err)
		if len(ds) == 1 {
			assert.Equal(t, 8, ds[0].Attempts)
			assert.Equal(t, 502, ds[0].LastCode)
			break
		}
		require.True(t, time.Now().Before(deadline), "the delivery was not marked failed")
		<-time.After(time.Millisecond) // the worker's commit is not announced: look again
	}
	clock.Add(100 * time.Hour)
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Get(m.URL() + "/metrics")
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), `hitl_webhook_failures_total{target="ci"} 1`) {
			break
		}
		require.True(t, time.Now().Before(deadline), "hitl_webhook_failures_total was not counted")
		<-time.After(time.Millisecond) // counted just after the failure is recorded: look again
	}
	_, err := m.obs.alerts.Check(context.Background()) // (the sweep may have checked already)
	require.NoError(t, err)
	var active []string
	for _, a := range m.obs.alerts.Active() {
		active = append(active, a.Name)
	}
	assert.Contains(t, active, observe.AlertWebhookFailures)
	assert.Equal(t, int64(8), attempts.Load(), "nothing after the eighth")
}
