package api

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/shell"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replica is one API server of a pair over the same store and notifier.
type replica struct {
	svc  *service.Service
	w    *watched  // the question waits it holds
	runs *heldRuns // the run waits (held checkpoints) it holds
	http *httptest.Server
	// front, when set, answers a request first (true: it answered).
	mu    sync.Mutex
	front func(w http.ResponseWriter, r *http.Request, next http.Handler) bool
}

// kill stops the replica the hard way: no new connections, and the ones
// open are cut, long polls included.
func (r *replica) kill() {
	r.http.Listener.Close()
	r.http.CloseClientConnections()
}

func (r *replica) intercept(f func(w http.ResponseWriter, r *http.Request, next http.Handler) bool) {
	r.mu.Lock()
	r.front = f
	r.mu.Unlock()
}

// heldRuns counts the checkpoints held in flight while their run is
// paused.
type heldRuns struct {
	Holds
	*watched
}

func (h *heldRuns) HoldWhilePaused(ctx, wait context.Context, e steer.StateEvent, cp hitl.Checkpoint) (hitl.Checkpoint, error) {
	h.change(func() { h.inWait++; h.entered++ })
	defer h.change(func() { h.inWait--; h.left++ })
	return h.Holds.HoldWhilePaused(ctx, wait, e, cp)
}

// twoReplicas starts two API servers over one store and one notifier, as
// two replicas over one database are, and a client of both (A first).
func twoReplicas(t *testing.T) (a, b *replica, c *client.Client) {
	t.Helper()
	store, n := memstore.New(), notify.New()
	clock := clocktest.New(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
	start := func() *replica {
		svc := service.NewService(store, service.ServiceConfig{Notifier: n, Clock: clock, ParseCommand: shell.Parse})
		r := &replica{svc: svc, w: newWatched(svc.Questions), runs: &heldRuns{Holds: svc.Runs, watched: newWatched(nil)}}
		svcs := over(r.w, svc)
		svcs.Holds = r.runs
		srv := NewServer(svcs, ServerConfig{Clock: clock, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
		r.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			r.mu.Lock()
			front := r.front
			r.mu.Unlock()
			if front != nil && front(w, req, srv) {
				return
			}
			srv.ServeHTTP(w, req)
		}))
		t.Cleanup(r.http.Close)
		t.Cleanup(srv.Close)
		return r
	}
	a, b = start(), start()
	c = client.NewClient(a.http.URL+", "+b.http.URL+"/", "", client.WithRetryBackoff(5*time.Millisecond, 50*time.Millisecond))
	require.Equal(t, []string{a.http.URL, b.http.URL}, c.URLs())
	return a, b, c
}

var person = principaltest.As(context.Background(), "slack:U024BE7LH")

func TestFailoverWaits(t *testing.T) {
	t.Run("a wait in progress carries on at the next replica when its replica dies", func(t *testing.T) {
		a, b, c := twoReplicas(t)
		got := make(chan *hitl.Question, 1)
		go func() {
			q, err := c.Ask(context.Background(), "fo-1", hitl.NewQuestion{Question: "Which database?"})
			assert.NoError(t, err)
			got <- q
		}()
		a.w.until(t, "the ask waits on A", func(in, _, _ int) bool { return in == 1 })
		a.kill()
		b.w.until(t, "the wait moved to B", func(in, _, _ int) bool { return in == 1 })
		pending, err := b.svc.Questions.Questions(principaltest.As(context.Background(), "admin:test"), hitl.QuestionFilter{RunID: "fo-1", Status: hitl.StatusPending})
		require.NoError(t, err)
		require.Len(t, pending, 1)
		q := pending[0]
		_, err = b.svc.Questions.Answer(person, q.ID, hitl.Response{Value: "staging"})
		require.NoError(t, err)
		select {
		case answered := <-got:
			assert.Equal(t, q.ID, answered.ID)
			assert.Equal(t, "staging", answered.Response.String())
		case <-time.After(testDeadline):
			t.Fatal("the ask never returned")
		}
	})

	t.Run("a checkpoint held while paused carries on at the next replica", func(t *testing.T) {
		a, b, c := twoReplicas(t)
		local := principaltest.As(context.Background(), "local")
		_, err := c.Report(context.Background(), "fo-loop", wire.CheckpointRequest{Iter: 1, Max: 5})
		require.NoError(t, err)
		pause := steer.NewRequest(client.NewRequestID(), steer.CommandPause, "fo-loop", time.Now(), steer.ControlPayload{})
		_, err = b.svc.Runs.Control(local, pause)
		require.NoError(t, err)
		got := make(chan hitl.Checkpoint, 1)
		go func() {
			cp, err := c.Report(context.Background(), "fo-loop", wire.CheckpointRequest{Iter: 2, Max: 5})
			assert.NoError(t, err)
			got <- cp
		}()
		a.runs.until(t, "the checkpoint is held on A", func(in, _, _ int) bool { return in == 1 })
		a.kill()
		b.runs.until(t, "the checkpoint is held on B", func(in, _, _ int) bool { return in == 1 })
		resume := steer.NewRequest(client.NewRequestID(), steer.CommandResume, "fo-loop", time.Now(), steer.ControlPayload{})
		_, err = b.svc.Runs.Control(local, resume)
		require.NoError(t, err)
		select {
		case cp := <-got:
			assert.Equal(t, steer.RunRunning, cp.Status)
		case <-time.After(testDeadline):
			t.Fatal("the checkpoint never returned")
		}
	})

	t.Run("a gate's approval wait carries on at the next replica", func(t *testing.T) {
		a, b, c := twoReplicas(t)
		got := make(chan client.GateResult, 1)
		go func() {
			res, err := c.Gate(context.Background(), hitl.ApprovalRequest{RunID: "fo-gate",
				Operation: hitl.Operation{Type: hitl.OpShell, Description: "deploy", Resource: "make deploy"}}, client.Progress{})
			assert.NoError(t, err)
			got <- res
		}()
		a.w.until(t, "the gate waits on A", func(in, _, _ int) bool { return in == 1 })
		a.kill()
		b.w.until(t, "the wait moved to B", func(in, _, _ int) bool { return in == 1 })
		pending, err := b.svc.Questions.Questions(principaltest.As(context.Background(), "admin:test"), hitl.QuestionFilter{RunID: "fo-gate", Status: hitl.StatusPending})
		require.NoError(t, err)
		require.Len(t, pending, 1)
		_, err = b.svc.Questions.Answer(person, pending[0].ID, hitl.Response{Value: "approve"})
		require.NoError(t, err)
		select {
		case res := <-got:
			assert.True(t, res.Allowed, "%+v", res)
			assert.Equal(t, pending[0].ID, res.QuestionID)
		case <-time.After(testDeadline):
			t.Fatal("the gate never returned")
		}
	})
}

// cutAfter lets the replica's handler do a request's work, then cuts the
// connection before the client reads the answer: the request reached the
// replica, which died before answering.
func cutAfter(match func(*http.Request) bool) func(w http.ResponseWriter, r *http.Request, next http.Handler) bool {
	return func(w http.ResponseWriter, r *http.Request, next http.Handler) bool {
		if !match(r) {
			return false
		}
		next.ServeHTTP(httptest.NewRecorder(), r)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return true
	}
}

func TestFailoverWrites(t *testing.T) {
	admin := principaltest.As(context.Background(), "admin:test")
	count := func(t *testing.T, svc *service.Service, run string) int {
		t.Helper()
		qs, err := svc.Questions.Questions(admin, hitl.QuestionFilter{RunID: run})
		require.NoError(t, err)
		return len(qs)
	}

	t.Run("a create that reached a dying replica is sent again under the same key: asked once", func(t *testing.T) {
		a, b, c := twoReplicas(t)
		a.intercept(cutAfter(func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/questions") }))
		q, created, err := c.Create(context.Background(), "fo-create", hitl.NewQuestion{Question: "Ship it?"})
		require.NoError(t, err)
		assert.False(t, created, "B found the question A created")
		assert.True(t, strings.HasPrefix(q.IdempotencyKey, "failover:"), q.IdempotencyKey)
		assert.Equal(t, 1, count(t, b.svc, "fo-create"))
	})

	t.Run("an approval request that reached a dying replica is sent again under the same key: asked once", func(t *testing.T) {
		a, b, c := twoReplicas(t)
		a.intercept(cutAfter(func(r *http.Request) bool { return r.URL.Path == "/api/approvals" }))
		out, err := c.RequestOperation(context.Background(), hitl.ApprovalRequest{RunID: "fo-approval",
			Operation: hitl.Operation{Type: hitl.OpShell, Description: "deploy", Resource: "make deploy"}})
		require.NoError(t, err)
		require.NotEmpty(t, out.QuestionID)
		assert.Equal(t, 1, count(t, b.svc, "fo-approval"))
	})

	t.Run("a replica that refuses connections is skipped for every request", func(t *testing.T) {
		a, b, c := twoReplicas(t)
		a.kill()
		q, created, err := c.Create(context.Background(), "fo-refused", hitl.NewQuestion{Question: "Ship it?"})
		require.NoError(t, err)
		assert.True(t, created)
		_, err = b.svc.Questions.Answer(person, q.ID, hitl.Response{Value: "yes"})
		require.NoError(t, err)
		got, err := c.Receive(context.Background(), q.ID)
		require.NoError(t, err)
		assert.Equal(t, "yes", got.Response.String())
	})

	t.Run("an answer that may have reached a dying replica is not sent again", func(t *testing.T) {
		a, b, c := twoReplicas(t)
		q, _, err := b.svc.Questions.Create(admin, "fo-answer", hitl.NewQuestion{Question: "Ship it?"})
		require.NoError(t, err)
		var toA atomic.Int32
		a.intercept(func(w http.ResponseWriter, r *http.Request, next http.Handler) bool {
			toA.Add(1)
			return cutAfter(func(*http.Request) bool { return true })(w, r, next)
		})
		_, err = c.Answer(context.Background(), q.ID, hitl.Response{Value: "yes"})
		assert.Equal(t, fault.EUNAVAILABLE, fault.Code(err), "%v", err)
		assert.EqualValues(t, 1, toA.Load())
		got, err := b.svc.Questions.Question(admin, q.ID)
		require.NoError(t, err)
		assert.Equal(t, hitl.StatusAnswered, got.Status, "A recorded it before dying")

		// The next call goes to B.
		got, err = c.Question(context.Background(), q.ID)
		require.NoError(t, err)
		assert.Equal(t, hitl.StatusAnswered, got.Status)
		assert.EqualValues(t, 1, toA.Load())
	})

	for _, status := range []int{http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout} {
		t.Run("a "+http.StatusText(status)+" moves to the next replica", func(t *testing.T) {
			a, b, c := twoReplicas(t)
			a.intercept(func(w http.ResponseWriter, r *http.Request, _ http.Handler) bool {
				http.Error(w, "upstream is gone", status)
				return true
			})
			_, _, err := c.Create(context.Background(), "fo-status", hitl.NewQuestion{Question: "Ship it?"})
			require.NoError(t, err)
			assert.Equal(t, 1, count(t, b.svc, "fo-status"))
		})
	}

	t.Run("every replica down is fault.EUNAVAILABLE", func(t *testing.T) {
		a, b, c := twoReplicas(t)
		a.kill()
		b.kill()
		_, err := c.Health(context.Background())
		assert.Equal(t, fault.EUNAVAILABLE, fault.Code(err))
		assert.Contains(t, fault.Message(err), "cannot reach hitl at "+b.http.URL)
	})

	t.Run("one URL gets no key of its own", func(t *testing.T) {
		a, _, _ := twoReplicas(t)
		c := client.NewClient(a.http.URL, "")
		q, _, err := c.Create(context.Background(), "fo-one", hitl.NewQuestion{Question: "Ship it?"})
		require.NoError(t, err)
		assert.Empty(t, q.IdempotencyKey)
	})
}
