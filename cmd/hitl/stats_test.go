package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/observe"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStatsCommand runs hitl stats against the real service on a
// scripted history whose answers are known: run-a asks two blocking
// questions answered after 30 s and 90 s, run-b an approval that times
// out; two days before, an answered question outside the window.
func TestStatsCommand(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	clock := clocktest.New(t0.Add(-48 * time.Hour))
	m := startMain(t, withClock(clock))
	ctx := context.Background()
	agent := auth.WithPrincipal(ctx, auth.LocalPrincipal("agent"))
	at := func(d time.Duration) { clock.Add(t0.Add(d).Sub(clock.Now())) }
	ask := func(run string, typ hitl.QuestionType) *hitl.Question {
		t.Helper()
		q, _, err := m.Service.Questions.Create(agent, run, hitl.NewQuestion{Question: "Go on?", Type: typ})
		require.NoError(t, err)
		return q
	}
	answer := func(q *hitl.Question) {
		t.Helper()
		_, err := m.Service.Questions.Answer(agent, q.ID, hitl.Response{Value: "yes"})
		require.NoError(t, err)
	}
	old := ask("run-old", hitl.Blocking)
	answer(old)
	at(0)
	q1 := ask("run-a", hitl.Blocking)
	q2 := ask("run-a", hitl.Blocking)
	ask("run-b", hitl.Approval)
	at(30 * time.Second)
	answer(q1)
	at(90 * time.Second)
	answer(q2)
	at(20 * time.Minute)
	_, err := m.Service.Questions.SweepExpired(ctx)
	require.NoError(t, err)
	at(time.Hour)

	t.Run("--json has issue 15's fields and the known numbers", func(t *testing.T) {
		r := cli(ctx, m, "", "stats", "--since", "24h", "--json")
		require.Equal(t, exitOK, r.code, r.stderr)
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
		assert.Equal(t, map[string]any{
			"since": "2026-11-23T10:00:00Z", "asked": 3.0, "answered": 2.0, "timedOut": 1.0, "cancelled": 0.0,
			"avgTimeToAnswerSeconds": 60.0, "p50TimeToAnswerSeconds": 30.0, "p90TimeToAnswerSeconds": 90.0,
			"timeoutRateByType": map[string]any{"blocking": 0.0, "approval": 1.0},
			"questionsPerRun":   1.5, "responseRate": 0.667, "remindersSent": 0.0, "escalations": 0.0,
			"alerts": []any{},
		}, got)
	})
	t.Run("--run narrows to one run", func(t *testing.T) {
		r := cli(ctx, m, "", "stats", "--run", "run-a", "--json")
		require.Equal(t, exitOK, r.code, r.stderr)
		var got observe.Stats
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
		assert.Equal(t, 2, got.Asked)
		assert.Equal(t, 2, got.Answered)
		assert.Zero(t, got.TimedOut)
		assert.Equal(t, 1.0, got.ResponseRate)
	})
	t.Run("three days hold the older question", func(t *testing.T) {
		r := cli(ctx, m, "", "stats", "--since", "3d", "--json")
		require.Equal(t, exitOK, r.code, r.stderr)
		var got observe.Stats
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
		assert.Equal(t, 4, got.Asked)
		assert.Equal(t, 3, got.Answered)
	})
	t.Run("the table for people", func(t *testing.T) {
		r := cli(ctx, m, "", "stats")
		require.Equal(t, exitOK, r.code, r.stderr)
		for _, want := range []string{"All runs, the last 24h0m0s", "Asked              3", "Answered           2",
			"Time to answer     avg 1m0s, p50 30s, p90 1m30s", "Response rate      67%", "Timeout rate, approval  100%", "Alerts             none active"} {
			assert.Contains(t, squeeze(r.stdout), squeeze(want))
		}
	})
	t.Run("a bad window is a usage error", func(t *testing.T) {
		r := cli(ctx, m, "", "stats", "--since", "yesterday")
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, `since "yesterday" is not a duration`)
	})
	t.Run("GET /api/stats refuses a bad window with a 400 and a code", func(t *testing.T) {
		resp, err := http.Get(m.URL() + "/api/stats?since=-1h")
		require.NoError(t, err)
		defer resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		var e struct{ Code string }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&e))
		assert.Equal(t, fault.EINVALID, e.Code)
	})
}

// squeeze folds runs of spaces, so that column widths do not matter.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

const adminToken = "admin-secret-0123456789"

func withAdminTokens(c *config.Config, m *Main) {
	withTokens(c, m)
	c.Tokens = append(c.Tokens, config.Token{Name: "ops", Token: adminToken, Scopes: []string{"admin"}})
}

// get GETs url with token (none when "") and returns the status and body.
func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestWhoMayScrape: on the API listener /metrics is for admins when
// tokens are set; on metrics_listen it is served without a token, and
// the API listener no longer serves it. Rows of the root's rule, end to
// end.
func TestWhoMayScrape(t *testing.T) {
	m := startMain(t, withAdminTokens)
	for _, r := range []struct {
		who    string
		token  string
		status int
	}{
		{"an admin token", adminToken, http.StatusOK},
		{"an answer token", aliceToken, http.StatusForbidden},
		{"an ask-only token", agentToken, http.StatusForbidden},
		{"no token", "", http.StatusUnauthorized},
		{"a wrong token", "nope-0123456789", http.StatusUnauthorized},
	} {
		t.Run(r.who, func(t *testing.T) {
			status, body := get(t, m.URL()+"/metrics", r.token)
			assert.Equal(t, r.status, status, body)
		})
	}
	t.Run("stats: an answer token may, an ask-only token may not", func(t *testing.T) {
		status, body := get(t, m.URL()+"/api/stats", aliceToken)
		assert.Equal(t, http.StatusOK, status, body)
		status, body = get(t, m.URL()+"/api/stats", agentToken)
		assert.Equal(t, http.StatusForbidden, status, body)
	})

	t.Run("metrics_listen serves without a token", func(t *testing.T) {
		m2 := startMain(t, withAdminTokens, func(c *config.Config, _ *Main) { c.MetricsListen = "127.0.0.1:0" })
		status, body := get(t, m2.MetricsURL(), "")
		assert.Equal(t, http.StatusOK, status, body)
		assert.Contains(t, body, "hitl_questions_pending")
		status, _ = get(t, m2.URL()+"/metrics", adminToken)
		assert.Equal(t, http.StatusNotFound, status, "not on the API listener then")
	})
}

// TestMetricsEndToEnd scrapes the running service after questions were
// asked, answered and timed out through it, and after a restart: the
// pending gauge is counted again from the store at start.
func TestMetricsEndToEnd(t *testing.T) {
	clock := clocktest.New(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	m := startMainNoCleanup(t, withClock(clock))
	ctx := context.Background()
	agent := auth.WithPrincipal(ctx, auth.LocalPrincipal("agent"))
	var qs []*hitl.Question
	for _, typ := range []hitl.QuestionType{hitl.Blocking, hitl.Blocking, hitl.Approval, hitl.Approval} {
		q, _, err := m.Service.Questions.Create(agent, "run-1", hitl.NewQuestion{Question: "Go on?", Type: typ})
		require.NoError(t, err)
		qs = append(qs, q)
	}
	clock.Add(45 * time.Second)
	_, err := m.Service.Questions.Answer(agent, qs[0].ID, hitl.Response{Value: "yes"})
	require.NoError(t, err)
	clock.Add(16 * time.Minute)
	_, err = m.Service.Questions.SweepExpired(ctx)
	require.NoError(t, err)

	scrapeMain := func(m *Main) map[string]float64 {
		t.Helper()
		require.NoError(t, m.obs.metrics.Sync(ctx)) // what was committed, counted now
		status, body := get(t, m.URL()+"/metrics", "")
		require.Equal(t, http.StatusOK, status, body)
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(strings.NewReader(body))
		require.NoError(t, err)
		out := map[string]float64{}
		for name, f := range fams {
			for _, s := range f.GetMetric() {
				key := name
				for _, l := range s.GetLabel() {
					key += "," + l.GetName() + "=" + l.GetValue()
				}
				switch {
				case s.Counter != nil:
					out[key] = s.Counter.GetValue()
				case s.Gauge != nil:
					out[key] = s.Gauge.GetValue()
				case s.Histogram != nil:
					out[key] = float64(s.Histogram.GetSampleCount())
				}
			}
		}
		return out
	}
	got := scrapeMain(m)
	assert.Equal(t, 2.0, got["hitl_questions_created_total,type=blocking"])
	assert.Equal(t, 2.0, got["hitl_questions_created_total,type=approval"])
	assert.Equal(t, 1.0, got["hitl_questions_settled_total,outcome=answered,type=blocking"])
	assert.Equal(t, 2.0, got["hitl_questions_settled_total,outcome=timeout,type=approval"])
	assert.Equal(t, 1.0, got["hitl_question_answer_seconds,type=blocking"])
	assert.Equal(t, 1.0, got["hitl_questions_pending,type=blocking"])
	assert.Equal(t, 0.0, got["hitl_questions_pending,type=approval"])
	assert.Contains(t, got, "hitl_alert_active,alert=unanswered_blocking")

	path := m.Config.DB
	require.NoError(t, m.Close())
	m2 := startMain(t, withClock(clock), func(c *config.Config, _ *Main) { c.DB = path })
	got = scrapeMain(m2)
	assert.Equal(t, 1.0, got["hitl_questions_pending,type=blocking"], "counted from the store at start")
	assert.Equal(t, 0.0, got["hitl_questions_created_total,type=blocking"], "counters start at the restart")
}
