package api

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/require"
)

// holdingCheckpoints is the service's holds, telling when a checkpoint is
// held.
type holdingCheckpoints struct {
	Holds
	held chan struct{}
}

func (h holdingCheckpoints) HoldWhilePaused(ctx, wait context.Context, e steer.StateEvent, cp hitl.Checkpoint) (hitl.Checkpoint, error) {
	h.held <- struct{}{}
	return h.Holds.HoldWhilePaused(ctx, wait, e, cp)
}

// TestCloseAnswersEveryWait: a closing server answers every request it
// holds — a question's long poll, a run's, a held hook call's wait, a
// checkpoint held while its run is paused — 503 unavailable with
// Retry-After and the JSON error body, which every client retries; never a
// 2xx without its body (issue 32: hitl serve answered them 200 with an
// empty body on SIGTERM). It does so also when the requests' own contexts
// end right after Close (the process cancels them once its grace ran out),
// and a request that arrives after Close gets the same 503.
func TestCloseAnswersEveryWait(t *testing.T) {
	type setup struct {
		e      *env
		parked chan struct{} // receives when the request is held
	}
	cases := []struct {
		name string
		// prepare makes the request hold and returns its method, path and
		// body.
		prepare func(t *testing.T, s setup) (method, path, body string)
	}{
		{"question long poll", func(t *testing.T, s setup) (string, string, string) {
			q := s.e.ask(t, "job-1", hitl.NewQuestion{Question: "Which?"})
			go func() {
				s.e.w.until(t, "the long poll is parked", func(in, _, _ int) bool { return in == 1 })
				s.parked <- struct{}{}
			}()
			return http.MethodGet, "/api/questions/" + q.ID + "?wait=5m", ""
		}},
		{"run long poll", func(t *testing.T, s setup) (string, string, string) {
			s.e.pausedLoop(t, "loop-1")
			return http.MethodGet, "/api/runs/loop-1?wait=5m&after=1000", ""
		}},
		{"held hook call", func(t *testing.T, s setup) (string, string, string) {
			_, err := s.e.client.Hook(context.Background(), steer.SessionHook{RunID: "claude-h", Agent: "Claude Code", Event: steer.HookSessionStart})
			require.NoError(t, err)
			s.e.pause(t, "claude-h")
			return http.MethodGet, "/api/runs/claude-h/hold?wait=5m&after=1000", ""
		}},
		{"checkpoint held while paused", func(t *testing.T, s setup) (string, string, string) {
			s.e.pausedLoop(t, "loop-2")
			return http.MethodPost, "/api/runs/loop-2/checkpoint?wait=5m", `{"iter": 2}`
		}},
	}
	for _, c := range cases {
		for _, cut := range []bool{false, true} {
			name := c.name
			if cut {
				name += ", requests cut after Close"
			}
			t.Run(name, func(t *testing.T) {
				e := newEnv(t, ServerConfig{})
				parked := make(chan struct{}, 1)
				svcs := over(e.w, e.svc)
				svcs.Runs = holdingRuns{RunService: e.svc.Runs, waiting: parked}
				svcs.Holds = holdingCheckpoints{Holds: e.svc.Runs, held: parked}
				srv := NewServer(svcs, ServerConfig{Clock: e.clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
				base, cutRequests := context.WithCancel(context.Background())
				defer cutRequests()
				hs := httptest.NewUnstartedServer(srv)
				hs.Config.BaseContext = func(net.Listener) context.Context { return base }
				hs.Start()
				t.Cleanup(hs.Close)

				method, path, body := c.prepare(t, setup{e: e, parked: parked})
				got := make(chan reply, 1)
				go func() { got <- callURL(t, method, hs.URL+path, body) }()
				recv(t, parked)
				srv.Close()
				if cut {
					cutRequests()
				}
				r := recv(t, got)
				requireError(t, r, http.StatusServiceUnavailable, fault.EUNAVAILABLE)
				require.Equal(t, "1", r.header.Get("Retry-After"), r.raw)

				after := callURL(t, http.MethodGet, hs.URL+"/api/questions/pending", "")
				requireError(t, after, http.StatusServiceUnavailable, fault.EUNAVAILABLE)
				require.Equal(t, "1", after.header.Get("Retry-After"))
			})
		}
	}
}

// pausedLoop starts loop run (one checkpoint) and pauses it.
func (e *env) pausedLoop(t *testing.T, run string) {
	t.Helper()
	_, err := e.client.Report(context.Background(), run, wire.CheckpointRequest{Iter: 1})
	require.NoError(t, err)
	e.pause(t, run)
}

// pause pauses run, which must exist.
func (e *env) pause(t *testing.T, run string) {
	t.Helper()
	msgs, err := e.svc.Runs.Control(principaltest.As(context.Background(), "admin:ops"), steer.NewRequest(client.NewRequestID(), steer.CommandPause, run, e.clock.Now(), steer.ControlPayload{}))
	require.NoError(t, err)
	_, failed := msgs[len(msgs)-1].Failed()
	require.False(t, failed, "%+v", msgs)
}
