package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/ratelimit"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/require"
)

// ownerTokens are accessTokens plus a controller (ctl).
func ownerTokens() []Token {
	return append(accessTokens(), Token{Secret: "tok-ctl", Principal: auth.TokenPrincipal("ctl", []auth.Scope{auth.ScopeControl}, "")})
}

const stateBody = `{"schema":1,"event":"STATE","run_id":"job-own","stack":[{"id":"job-own","iter":2}]}`

// TestRunOwnershipOnTheWire: each HTTP route that touches a run answers
// another agent 403 {"code":"forbidden"} naming the rule; the owner,
// controllers (read, threshold) and admins keep their rights.
func TestRunOwnershipOnTheWire(t *testing.T) {
	e := newEnv(t, ServerConfig{Tokens: ownerTokens()})
	r := e.call(t, "POST", "/api/jobs/job-own/questions", `{"question":"Deadline?"}`, as("ci")...)
	require.Equal(t, http.StatusCreated, r.status, r.raw)
	qid := r.body["questionId"].(string)
	routes := []struct{ name, method, path, body string }{
		{"ask", "POST", "/api/jobs/job-own/questions", `{"question":"Mine now?"}`},
		{"STATE", "POST", "/api/topics/loop:current", stateBody},
		{"ABORT", "POST", "/api/topics/loop:current", `{"schema":1,"event":"ABORT","run_id":"job-own","reason":"gone"}`},
		{"checkpoint", "POST", "/api/runs/job-own/checkpoint", `{"iter":3}`},
		{"read_run", "GET", "/api/runs/job-own", ""},
		{"read_run_state", "GET", "/api/jobs/job-own", ""},
		{"read_questions", "GET", "/api/jobs/job-own/questions", ""},
		{"wait_on_run", "GET", "/api/runs/job-own?wait=1s", ""},
		{"wait_on_question", "GET", "/api/questions/" + qid + "?wait=1s", ""},
		{"threshold", "POST", "/api/jobs/job-own", `{"interactionThreshold":0}`},
	}
	for _, rt := range routes {
		t.Run("another_agent_"+rt.name+"_is_403", func(t *testing.T) {
			r := e.call(t, rt.method, rt.path, rt.body, as("other")...)
			requireError(t, r, http.StatusForbidden, fault.EFORBIDDEN)
			require.Contains(t, r.body["message"], "api:other")
		})
	}
	t.Run("the_run_is_unchanged", func(t *testing.T) {
		run, err := e.svc.Runs.RunRecord(auth.WithPrincipal(context.Background(), auth.TokenPrincipal("admin", []auth.Scope{auth.ScopeAdmin}, "")), "job-own")
		require.NoError(t, err)
		require.Equal(t, "api:ci", run.Asker)
		require.Equal(t, 1, run.Questions)
		require.Nil(t, run.Control.Threshold)
		require.Empty(t, run.Control.Status)
	})
	t.Run("controllers_read_and_set_the_threshold_but_do_not_report", func(t *testing.T) {
		for _, rt := range routes {
			r := e.call(t, rt.method, rt.path, rt.body, as("ctl")...)
			switch rt.name {
			case "read_run", "wait_on_run":
				require.Equal(t, http.StatusOK, r.status, "%s: %s", rt.name, r.raw)
			case "threshold":
				require.Equal(t, http.StatusOK, r.status, r.raw)
				e.call(t, "POST", "/api/jobs/job-own", `{"interactionThreshold":null}`, as("ctl")...)
			default:
				require.Equal(t, http.StatusForbidden, r.status, "%s: %s", rt.name, r.raw)
			}
		}
	})
	t.Run("the_owner_and_admins_may", func(t *testing.T) {
		for _, who := range []string{"ci", "admin"} {
			for _, rt := range routes {
				if rt.name == "ABORT" || rt.name == "threshold" || (rt.name == "wait_on_question" && who == "ci") {
					continue // ends the run or refuses the owner's questions; waiting would block the test
				}
				r := e.call(t, rt.method, rt.path, rt.body, as(who)...)
				require.Less(t, r.status, 300, "%s %s: %s", who, rt.name, r.raw)
			}
		}
	})
	t.Run("the_sdk_gets_forbidden", func(t *testing.T) {
		c := client.NewClient(e.http.URL, "tok-other")
		_, _, err := c.Create(context.Background(), "job-own", hitl.NewQuestion{Question: "Mine now?"})
		require.Equal(t, fault.EFORBIDDEN, fault.Code(err))
		_, err = c.RunRecord(context.Background(), "job-own")
		require.Equal(t, fault.EFORBIDDEN, fault.Code(err))
	})
}

// TestOwnRunEventsStayWithTheOwner: loop:current events of a run reach
// its owner's streams, not another agent's.
func TestOwnRunEventsStayWithTheOwner(t *testing.T) {
	e := newEnv(t, ServerConfig{Tokens: ownerTokens()})
	ci, other := e.openEvents(t, "", as("ci")...), e.openEvents(t, "", as("other")...)
	r := e.call(t, "POST", "/api/topics/loop:current", stateBody, as("ci")...)
	require.Equal(t, http.StatusOK, r.status, r.raw)
	r = e.call(t, "POST", "/api/jobs/job-theirs/questions", `{"question":"Marker?"}`, as("other")...)
	require.Equal(t, http.StatusCreated, r.status, r.raw)
	marker := r.body["questionId"].(string)
	require.Equal(t, "loop", next(t, ci).event, "the owner sees its run's STATE")
	first := next(t, other)
	require.Equal(t, "question_asked", first.event, "another agent does not")
	require.Equal(t, marker, first.data["questionId"])
}

// TestDefaultRunOnTheWire: GET /api/whoami names the principal, and the
// default run it gives a client is one no other token can start.
func TestDefaultRunOnTheWire(t *testing.T) {
	e := newEnv(t, ServerConfig{Tokens: ownerTokens()})
	ctx := context.Background()
	ci, other := client.NewClient(e.http.URL, "tok-ci"), client.NewClient(e.http.URL, "tok-other")
	run, err := ci.DefaultRun(ctx, "cli-alice")
	require.NoError(t, err)
	require.Equal(t, "cli-alice@api:ci", run)
	_, _, err = other.Create(ctx, run, hitl.NewQuestion{Question: "First?"})
	require.Equal(t, fault.EFORBIDDEN, fault.Code(err), "another token cannot take it first")
	require.Contains(t, fault.Message(err), "reserved for api:ci")
	_, err = other.Publish(ctx, steer.StateEvent{Event: steer.StateRunning, RunID: run, Stack: []steer.StackEntry{{ID: run, Iter: 1}}})
	require.Equal(t, fault.EFORBIDDEN, fault.Code(err))
	zero := 0
	_, err = other.SetThreshold(ctx, run, &zero)
	require.Equal(t, fault.EFORBIDDEN, fault.Code(err))
	q, _, err := ci.Create(ctx, run, hitl.NewQuestion{Question: "Mine?"})
	require.NoError(t, err, "its owner starts it")
	require.Equal(t, run, q.RunID)
}

// TestFloodsOnTheWire: past a principal's stream bound or rate limits the
// API answers 429 with a code and Retry-After, before storing anything,
// and 1,000 refusals add a handful of audit events.
func TestFloodsOnTheWire(t *testing.T) {
	newFloodEnv := func(t *testing.T) *env {
		return newEnvWith(t, ServerConfig{Tokens: ownerTokens()}, func(c *service.ServiceConfig) {
			lim := func() hitl.Limiter { return ratelimit.New(1, 0, c.Clock.Now) }
			c.MaxStreams = 2
			c.Limits = map[hitl.Limit]hitl.Limiter{hitl.LimitControl: lim(), hitl.LimitRuns: lim(), hitl.LimitPolicy: lim()}
		})
	}
	seq := func(t *testing.T, e *env) uint64 {
		n, err := e.svc.Log.LastSeq(context.Background())
		require.NoError(t, err)
		return n
	}
	t.Run("streams_past_the_bound_are_429_too_many_streams", func(t *testing.T) {
		e := newFloodEnv(t)
		r := e.call(t, "POST", "/api/jobs/job-1/questions", `{"question":"Deadline?"}`, as("ci")...)
		require.Equal(t, http.StatusCreated, r.status, r.raw)
		qid := r.body["questionId"].(string)
		ctx, cancel := context.WithCancel(context.Background())
		_ = e.openEventsCtx(t, ctx, "", as("ci")...)
		_ = e.openEvents(t, "", as("ci")...)
		for _, path := range []string{"/api/events", "/api/topics/loop:current", "/api/questions/" + qid + "?wait=5s", "/api/runs/job-1?wait=5s"} {
			r := e.call(t, "GET", path, "", as("ci")...)
			requireError(t, r, http.StatusTooManyRequests, fault.ETOOMANYSTREAMS)
			require.Equal(t, "1", r.header.Get("Retry-After"), path)
		}
		r = e.call(t, "GET", "/api/questions/"+qid+"?wait=1ms", "", as("admin")...)
		require.Equal(t, http.StatusOK, r.status, "another principal has its own bound: %s", r.raw)
		before := seq(t, e)
		for range 1000 {
			r := e.call(t, "GET", "/api/events", "", as("ci")...)
			require.Equal(t, http.StatusTooManyRequests, r.status)
		}
		require.LessOrEqual(t, seq(t, e)-before, uint64(6), "1,000 refused streams add a handful of events")
		cancel() // one stream ends: its place is free again
		deadline := time.Now().Add(testDeadline)
		for {
			r := e.call(t, "GET", "/api/questions/"+qid+"?wait=1ms", "", as("ci")...)
			if r.status == http.StatusOK {
				break
			}
			require.Equal(t, http.StatusTooManyRequests, r.status, r.raw)
			require.True(t, time.Now().Before(deadline), "the closed stream's place was never freed")
		}
	})
	t.Run("a_checkpoint_held_while_paused_is_a_stream", func(t *testing.T) {
		e := newFloodEnv(t)
		_ = e.openEvents(t, "", as("ci")...)
		_ = e.openEvents(t, "", as("ci")...)
		r := e.call(t, "POST", "/api/runs/job-p/checkpoint?wait=5s", `{"iter":1}`, as("ci")...)
		require.Equal(t, http.StatusOK, r.status, "running: not held, not a stream: %s", r.raw)
		require.Equal(t, steer.ResultSuccess, e.steer(t, steer.CommandPause, "job-p", steer.ControlPayload{}).Status)
		e.clock.Add(time.Minute) // the runs limit refills
		r = e.call(t, "POST", "/api/runs/job-p/checkpoint?wait=5s", `{"iter":2}`, as("ci")...)
		requireError(t, r, http.StatusTooManyRequests, fault.ETOOMANYSTREAMS)
	})
	control := func(i int) string {
		b, _ := json.Marshal(steer.NewRequest("req-"+strconv.Itoa(i), steer.CommandPause, "job-1", time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), steer.ControlPayload{}))
		return string(b)
	}
	for name, tc := range map[string]struct {
		method, path string
		body         func(i int) string
	}{
		"control":              {"POST", "/api/topics/loop:control", control},
		"state":                {"POST", "/api/topics/loop:current", func(int) string { return stateBody }},
		"new_runs":             {"POST", "/api/runs/job-x/checkpoint", func(int) string { return `{"iter":1}` }},
		"approvals":            {"POST", "/api/approvals", func(int) string { return `{"type":"shell","resource":"ls","description":"list"}` }},
		"read_policy":          {"GET", "/api/policy", func(int) string { return "" }},
		"revoke":               {"POST", "/api/policy/rules/r_x/revoke", func(int) string { return "" }},
		"asking_in_others_run": {"POST", "/api/jobs/job-own/questions", func(int) string { return `{"question":"Mine?"}` }},
	} {
		t.Run(name+"_flood_is_refused_and_costs_a_handful_of_events", func(t *testing.T) {
			e := newFloodEnv(t)
			r := e.call(t, "POST", "/api/jobs/job-own/questions", `{"question":"Deadline?"}`, as("ci")...)
			require.Equal(t, http.StatusCreated, r.status, r.raw)
			who := "admin"
			if name == "asking_in_others_run" {
				who = "other"
			}
			e.call(t, tc.method, tc.path, tc.body(0), as(who)...) // the one allowed
			before := seq(t, e)
			for i := range 1000 {
				r := e.call(t, tc.method, tc.path, tc.body(1+i), as(who)...)
				if who == "other" {
					requireError(t, r, http.StatusForbidden, fault.EFORBIDDEN)
					continue
				}
				requireError(t, r, http.StatusTooManyRequests, fault.ERATELIMITED)
				require.NotEmpty(t, r.header.Get("Retry-After"))
			}
			require.LessOrEqual(t, seq(t, e)-before, uint64(6), "1,000 refusals add a handful of events")
		})
	}
}

// refuseOnce is a hitl.Limiter that refuses its second call (retry in
// 10 ms) and allows every other.
type refuseOnce struct {
	mu    sync.Mutex
	calls int
}

func (l *refuseOnce) Allow(string, string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls++; l.calls == 2 {
		return 10 * time.Millisecond
	}
	return 0
}

// TestSDKWaitsOutFloodLimits: a loop's checkpoint over the run-report
// limit, and a Wait past the stream bound, wait Retry-After and go on.
func TestSDKWaitsOutFloodLimits(t *testing.T) {
	ctx := context.Background()
	t.Run("checkpoint", func(t *testing.T) {
		e := newEnvWith(t, ServerConfig{}, func(c *service.ServiceConfig) {
			c.Limits = map[hitl.Limit]hitl.Limiter{hitl.LimitRuns: &refuseOnce{}}
		})
		loop, err := e.client.Run(ctx, "loop-rl", client.RunOptions{Model: "haiku"})
		require.NoError(t, err)
		defer loop.Close()
		_, err = loop.Checkpoint(ctx, 1) // refused once, then reported
		require.NoError(t, err)
	})
	t.Run("wait", func(t *testing.T) {
		e := newEnvWith(t, ServerConfig{}, func(c *service.ServiceConfig) { c.MaxStreams = 1 })
		q := e.ask(t, "job-w", textQ)
		hold, cancel := context.WithCancel(ctx)
		_ = e.openEventsCtx(t, hold, "")
		done := make(chan error, 1)
		go func() {
			got, err := e.client.Wait(ctx, q.ID)
			if err == nil && got.Pending() {
				err = context.DeadlineExceeded
			}
			done <- err
		}()
		e.untilEvent(t, "the waiter was refused a stream", func(ev *hitl.Event) bool {
			return ev.Type == hitl.EventRefused && strings.Contains(ev.Reason, "streams and long polls at once")
		})
		cancel() // the stream ends; the waiter gets its place after Retry-After
		e.w.until(t, "the waiter waits", func(in, _, _ int) bool { return in == 1 })
		e.answer(t, q.ID, hitl.Response{Value: "friday"})
		require.NoError(t, recv(t, done))
	})
}
