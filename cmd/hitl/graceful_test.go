package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// graceful is one graceful stop of the service while every kind of Go
// client waits on it: the service (or one replica) gets a signal, comes
// back (or another replica serves), a person answers, and each client gets
// its answer.
type graceful struct {
	t       *testing.T
	ctx     context.Context
	proxies []*seenProxy  // in front of each replica; clients list them all
	back    chan struct{} // closed once the service answers again
}

// urls is HITL_URL for the clients: every replica, through its proxy.
func (g *graceful) urls() string {
	us := make([]string, len(g.proxies))
	for i, p := range g.proxies {
		us[i] = p.url()
	}
	return strings.Join(us, ",")
}

// people is HITL_URL for a person's commands (answer, resume): the
// replicas still serving after the stop (an answer is a write, which a
// client does not send again at another replica once it may have
// reached one that failed).
func (g *graceful) people() string {
	if len(g.proxies) == 1 {
		return g.proxies[0].url()
	}
	us := make([]string, 0, len(g.proxies)-1)
	for _, p := range g.proxies[1:] {
		us = append(us, p.url())
	}
	return strings.Join(us, ",")
}

// waiting is one client waiting on the service: started before the stop,
// settled by a person after it, then checked.
type waiting struct {
	name string
	run  string
	// start starts the client and returns once its wait reached the
	// service (the first replica), with what checks its end.
	start func(g *graceful) (check func(t *testing.T))
	// settle is what a person does once the service is back: answer the
	// run's one question (the default), or resume the run.
	settle func(g *graceful, admin *client.Client)
}

// parkedQuestion waits until a question's long poll that the proxy saw
// after mark reached the service and returns the question's id.
func (g *graceful) parkedQuestion(mark int, what string) string {
	g.t.Helper()
	r := g.proxies[0].until(g.t, mark, what+" waits on its question", questionPoll)
	return strings.TrimPrefix(r.URL.Path, "/api/questions/")
}

// gracefulClients are the Go clients of issue 32, each waiting in its own
// run (on a question, unless it has a settle of its own).
func gracefulClients() []waiting {
	return []waiting{
		{name: "SDK Ask (long poll)", run: "sdk-run", start: func(g *graceful) func(*testing.T) {
			mark := g.proxies[0].mark()
			c := client.NewClient(g.urls(), "", client.WithUser("agent"))
			done := make(chan error, 1)
			var got *hitl.Question
			go func() {
				var err error
				got, err = c.Ask(g.ctx, "sdk-run", hitl.NewQuestion{Question: "Which colour?"})
				done <- err
			}()
			g.parkedQuestion(mark, "the SDK")
			return func(t *testing.T) {
				require.NoError(t, recvWithin(t, done))
				assert.Equal(t, "blue", got.Response.Value)
			}
		}},
		{name: "raw long poll (what other clients see)", run: "raw-run", start: func(g *graceful) func(*testing.T) {
			admin := client.NewClient(g.urls(), "", client.WithUser("agent"))
			q, _, err := admin.Create(g.ctx, "raw-run", hitl.NewQuestion{Question: "Which colour?"})
			require.NoError(g.t, err)
			mark := g.proxies[0].mark()
			first := make(chan *http.Response, 1)
			go func() {
				resp, err := http.Get(g.proxies[0].url() + "/api/questions/" + q.ID + "?wait=5m")
				if err == nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					resp.Body = io.NopCloser(strings.NewReader(string(b)))
				}
				first <- resp
			}()
			g.proxies[0].until(g.t, mark, "the raw long poll", questionPoll)
			return func(t *testing.T) {
				resp := recvWithin(t, first)
				require.NotNil(t, resp, "the long poll got an answer")
				b, _ := io.ReadAll(resp.Body)
				require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "a long poll let go by the stop is 503, never 2xx: %s", b)
				assert.Equal(t, "1", resp.Header.Get("Retry-After"))
				var body map[string]any
				require.NoError(t, json.Unmarshal(b, &body), "the JSON error body: %q", b)
				assert.Equal(t, "unavailable", body["code"])
				got, err := admin.Wait(g.ctx, q.ID)
				require.NoError(t, err)
				assert.Equal(t, "blue", got.Response.Value)
			}
		}},
		{name: "SSE stream", run: "sse-run", start: func(g *graceful) func(*testing.T) {
			urls := make([]string, len(g.proxies))
			for i, p := range g.proxies {
				urls[i] = p.url()
			}
			mark := g.proxies[0].mark()
			events := followEvents(g.ctx, urls, "jobId=sse-run", g.back)
			g.proxies[0].until(g.t, mark, "the stream", func(r *http.Request) bool { return r.URL.Path == "/api/events" })
			c := client.NewClient(g.urls(), "", client.WithUser("agent"))
			q, _, err := c.Create(g.ctx, "sse-run", hitl.NewQuestion{Question: "Which colour?"})
			require.NoError(g.t, err)
			asked := nextEvent(g.t, events, "question_asked")
			require.Equal(g.t, q.ID, asked.data["questionId"])
			return func(t *testing.T) {
				ev := nextEvent(t, events, "question_answered")
				assert.Equal(t, q.ID, ev.data["questionId"])
				assert.Equal(t, "blue", ev.data["response"].(map[string]any)["value"])
			}
		}},
		{name: "hitl ask", run: "ask-run", start: func(g *graceful) func(*testing.T) {
			mark := g.proxies[0].mark()
			ch := cliAs(g.ctx, g.urls(), "agent", nil, "ask", "Which colour?", "--run", "ask-run")
			g.parkedQuestion(mark, "hitl ask")
			return func(t *testing.T) {
				r := result(t, ch)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, "blue\n", r.stdout)
			}
		}},
		{name: "hitl gate", run: "gate-run", start: func(g *graceful) func(*testing.T) {
			mark := g.proxies[0].mark()
			ch := cliAs(g.ctx, g.urls(), "agent", nil, "gate", "--run", "gate-run", "--", "sh", "-c", "echo ran")
			g.parkedQuestion(mark, "hitl gate")
			return func(t *testing.T) {
				r := result(t, ch)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, "ran\n", r.stdout)
			}
		}},
		{name: "hitl hook claude", run: "claude-graceful", start: func(g *graceful) func(*testing.T) {
			mark := g.proxies[0].mark()
			ev := hookEvent(g.t, "claude_pretooluse_bash.json", map[string]any{"session_id": "graceful"})
			ch := cliAs(g.ctx, g.urls(), "agent", strings.NewReader(ev), "hook", "claude")
			g.parkedQuestion(mark, "the hook")
			return func(t *testing.T) {
				d := decoded(t, result(t, ch))
				assert.Equal(t, "allow", d.PermissionDecision)
			}
		}},
		{name: "hitl mcp", run: "mcp-run", start: func(g *graceful) func(*testing.T) {
			mark := g.proxies[0].mark()
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			ch := cliAsTo(g.ctx, g.urls(), "agent", inR, outW, "mcp", "--run", "mcp-run")
			go func() { <-ch; _ = outW.Close() }()
			lines := make(chan rpcLine, 16)
			go func() {
				sc := bufio.NewScanner(outR)
				sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
				for sc.Scan() {
					var l rpcLine
					if json.Unmarshal(sc.Bytes(), &l) == nil && len(l.ID) > 0 {
						lines <- l
					}
				}
			}()
			// hitl mcp's stdin is read by its own goroutine: writes return
			// once it took them.
			go func() {
				_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"graceful","version":"1"}}}`+"\n"+
					`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
					`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_human","arguments":{"prompt":"Which colour?"}}}`+"\n")
			}()
			require.Equal(g.t, "1", string(recvWithin(g.t, lines).ID))
			g.parkedQuestion(mark, "hitl mcp")
			return func(t *testing.T) {
				l := recvWithin(t, lines)
				require.Equal(t, "2", string(l.ID))
				require.Nil(t, l.Error)
				var res struct {
					IsError bool `json:"isError"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				}
				require.NoError(t, json.Unmarshal(l.Result, &res))
				require.False(t, res.IsError, "%s", l.Result)
				require.NotEmpty(t, res.Content)
				assert.Contains(t, res.Content[0].Text, "blue")
				_ = inW.Close()
			}
		}},
		{name: "hitl hook held while paused", run: "claude-held", start: func(g *graceful) func(*testing.T) {
			ev := func(file string) io.Reader {
				return strings.NewReader(hookEvent(g.t, file, map[string]any{"session_id": "held"}))
			}
			r := result(g.t, cliAs(g.ctx, g.urls(), "agent", ev("claude_sessionstart.json"), "hook", "claude"))
			require.Equal(g.t, 0, r.code, r.stderr)
			r = result(g.t, cliAs(g.ctx, g.urls(), "person", nil, "pause", "claude-held"))
			require.Equal(g.t, 0, r.code, r.stderr)
			mark := g.proxies[0].mark()
			ch := cliAs(g.ctx, g.urls(), "agent", ev("claude_pretooluse_bash.json"), "hook", "claude")
			g.proxies[0].until(g.t, mark, "the hook call is held", func(r *http.Request) bool {
				return r.URL.Path == "/api/runs/claude-held/hold"
			})
			return func(t *testing.T) {
				out := hookJSON(t, result(t, ch))
				assert.Equal(t, false, out["continue"], "the held call outlived the stop and learned of the cancel: %v", out)
				assert.Equal(t, "deny", specific(t, out)["permissionDecision"])
			}
		}, settle: func(g *graceful, _ *client.Client) {
			r := result(g.t, cliAs(g.ctx, g.people(), "person", nil, "cancel", "claude-held"))
			require.Equal(g.t, 0, r.code, r.stderr)
		}},
		{name: "hitl checkpoint held while paused", run: "cp-run", start: func(g *graceful) func(*testing.T) {
			r := result(g.t, cliAs(g.ctx, g.urls(), "agent", nil, "checkpoint", "--run", "cp-run", "--iter", "1"))
			require.Equal(g.t, 0, r.code, r.stderr)
			r = result(g.t, cliAs(g.ctx, g.urls(), "person", nil, "pause", "cp-run"))
			require.Equal(g.t, 0, r.code, r.stderr)
			mark := g.proxies[0].mark()
			ch := cliAs(g.ctx, g.urls(), "agent", nil, "checkpoint", "--run", "cp-run", "--iter", "2")
			g.proxies[0].until(g.t, mark, "the checkpoint is held", func(r *http.Request) bool {
				return strings.HasSuffix(r.URL.Path, "/cp-run/checkpoint")
			})
			return func(t *testing.T) {
				r := result(t, ch)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Contains(t, r.stdout, `"status":"running"`)
			}
		}, settle: func(g *graceful, _ *client.Client) {
			r := result(g.t, cliAs(g.ctx, g.people(), "person", nil, "resume", "cp-run"))
			require.Equal(g.t, 0, r.code, r.stderr)
		}},
	}
}

// answerRun answers run's one question as a person: approve an approval,
// "blue" otherwise.
func answerRun(g *graceful, admin *client.Client, run string) {
	g.t.Helper()
	q := onlyQuestion(g.t, admin, run)
	value := "blue"
	if q.Type == hitl.Approval {
		value = "approve"
	}
	r := result(g.t, cliAs(g.ctx, g.people(), "person", nil, "answer", q.ID, value))
	require.Equal(g.t, 0, r.code, r.stderr)
}

// runGraceful starts every client waiting on the first replica, stops it
// with sig, calls restart (which brings the service back, or leaves the
// other replicas to serve), lets a person settle each run, and checks
// that each client got its answer and that each run holds one question.
// During the outage it also runs hitl pause on a run named by a handle.
func runGraceful(g *graceful, first *childReplica, sig syscall.Signal, restart func()) {
	t := g.t
	admin := client.NewClient(g.urls(), "", client.WithUser("person"))
	r := result(t, cliAs(g.ctx, g.urls(), "agent", nil, "checkpoint", "--run", "pausable-graceful-run", "--iter", "1"))
	require.Equal(t, 0, r.code, r.stderr)

	clients := gracefulClients()
	checks := make([]func(*testing.T), len(clients))
	for i, c := range clients {
		checks[i] = c.start(g)
	}
	first.stop(t, sig)

	// hitl pause during the outage: its look-up of the handle waits it
	// out (or fails over), as the control request does.
	mark := g.proxies[0].mark()
	pause := cliAs(g.ctx, g.urls(), "person", nil, "pause", "pausable-gr")
	g.proxies[0].until(t, mark, "hitl pause looks the handle up", func(r *http.Request) bool {
		return strings.HasPrefix(r.URL.Path, "/api/runs/")
	})
	restart()
	close(g.back)

	for _, c := range clients {
		if c.settle != nil {
			c.settle(g, admin)
			continue
		}
		answerRun(g, admin, c.run)
	}
	for i, c := range clients {
		t.Run(c.name, checks[i])
		if c.settle == nil {
			onlyQuestion(t, admin, c.run)
		}
	}
	t.Run("hitl pause RUN during the outage", func(t *testing.T) {
		r := result(t, pause)
		require.Equal(t, 0, r.code, r.stderr)
		run, err := admin.RunRecord(g.ctx, "pausable-graceful-run")
		require.NoError(t, err)
		assert.Equal(t, steer.RunPaused, run.Control.Status)
	})
}

// TestGracefulRestart: hitl serve gets SIGTERM (and, again, SIGINT) while
// every kind of Go client waits on it — the SDK's long poll, a raw long
// poll, an SSE stream, hitl ask, hitl gate, a Claude Code hook waiting on
// an approval, hitl mcp, a hitl checkpoint held while its run is paused —
// and comes back on the same database and port; hitl pause run during the
// outage waits it out. Each client gets its answer, none fails, nothing is
// asked twice (issue 32).
func TestGracefulRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hitl serve in child processes")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			services := servicesContext(t)
			db := filepath.Join(t.TempDir(), "hitl.db")
			first := startServeChild(t, services, db, "127.0.0.1:0", "")
			u, err := url.Parse(first.url)
			require.NoError(t, err)
			g := &graceful{t: t, ctx: ctx, proxies: []*seenProxy{newSeenProxy(t, first.url)}, back: make(chan struct{})}
			runGraceful(g, first, sig, func() {
				second := startServeChild(t, services, db, u.Host, "")
				t.Cleanup(func() { second.stop(t, syscall.SIGTERM) })
			})
		})
	}
}

// TestGracefulReplicaStop: two replicas on PostgreSQL; the one every
// client waits on is stopped gracefully (SIGTERM, then SIGINT in a second
// run) and the clients carry on at the other, where a person answers.
func TestGracefulReplicaStop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hitl serve in child processes")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			db, key := pgtest.DB(t), keyFile(t)
			services := servicesContext(t)
			first := startServeChild(t, services, db, "127.0.0.1:0", key)
			other := startServeChild(t, services, db, "127.0.0.1:0", key)
			t.Cleanup(func() { other.stop(t, syscall.SIGTERM) })
			g := &graceful{t: t, ctx: ctx, proxies: []*seenProxy{newSeenProxy(t, first.url), newSeenProxy(t, other.url)},
				back: make(chan struct{})}
			runGraceful(g, first, sig, func() {})
		})
	}
}

// servicesContext is the context of a test's child services: it ends
// after they were stopped (the test's own context ends first, with its
// clients).
func servicesContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// recvWithin receives from ch, failing the test after a minute.
func recvWithin[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatal("timed out waiting on a channel")
		var zero T
		return zero
	}
}

// TestNoAnswerIsRetriedByEveryClient: the first answer each Go client
// gets to its wait (its question's long poll, its checkpoint, hitl pause's
// look-up of the run) is a 2xx with an empty, truncated or non-JSON body:
// each takes it for a transport failure, asks again and gets the real
// answer; nothing is asked twice (issue 32).
func TestNoAnswerIsRetriedByEveryClient(t *testing.T) {
	bodies := map[string]string{"empty": "", "truncated": `{"question": {"id": "q_`, "not JSON": "<html>502 Bad Gateway</html>"}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			m := startMain(t)
			p := newSeenProxy(t, m.URL())
			p.spoil, p.spoilBody = func(r *http.Request) bool {
				return questionPoll(r) || strings.HasSuffix(r.URL.Path, "/checkpoint") || strings.HasSuffix(r.URL.Path, "/hold") ||
					strings.HasPrefix(r.URL.Path, "/api/runs/pausable")
			}, body
			g := &graceful{t: t, ctx: ctx, proxies: []*seenProxy{p}, back: make(chan struct{})}
			admin := client.NewClient(m.URL(), "", client.WithUser("person"))
			r := result(t, cliAs(ctx, m.URL(), "agent", nil, "checkpoint", "--run", "pausable-spoiled-run", "--iter", "1"))
			require.Equal(t, 0, r.code, r.stderr)

			var clients []waiting
			for _, c := range gracefulClients() {
				if c.run != "raw-run" && c.run != "sse-run" { // they check what the stop answers
					clients = append(clients, c)
				}
			}
			checks := make([]func(*testing.T), len(clients))
			for i, c := range clients {
				checks[i] = c.start(g)
			}
			pause := cliAs(ctx, p.url(), "person", nil, "pause", "pausable-sp")
			for _, c := range clients {
				if c.settle != nil {
					c.settle(g, admin)
					continue
				}
				answerRun(g, admin, c.run)
			}
			for i, c := range clients {
				t.Run(c.name, checks[i])
				if c.settle == nil {
					onlyQuestion(t, admin, c.run)
				}
			}
			r = result(t, pause)
			require.Equal(t, 0, r.code, r.stderr)
			spoiled := p.spoiledPaths()
			assert.True(t, spoiled["/api/runs/pausable-sp"], "hitl pause's look-up got a spoiled answer: %v", spoiled)
			assert.True(t, spoiled["/api/runs/cp-run/checkpoint"], "hitl checkpoint got a spoiled answer: %v", spoiled)
			assert.True(t, spoiled["/api/runs/claude-held/hold"], "the held hook call got a spoiled answer: %v", spoiled)
			assert.Len(t, spoiled, len(clients)+1, "each question's wait got a spoiled answer: %v", spoiled)
		})
	}
}
