package api

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/require"
)

func TestNewHTTPServer(t *testing.T) {
	t.Run("bounds_reads_and_leaves_writes_to_handlers", func(t *testing.T) {
		type key struct{}
		base := func(net.Listener) context.Context { return context.WithValue(context.Background(), key{}, 1) }
		h := http.NotFoundHandler()
		s := NewHTTPServer(h, base)
		require.Equal(t, 10*time.Second, s.ReadHeaderTimeout)
		require.Equal(t, time.Minute, s.ReadTimeout)
		require.Equal(t, 2*time.Minute, s.IdleTimeout)
		require.Zero(t, s.WriteTimeout)
		require.NotNil(t, s.BaseContext)
		require.Equal(t, 1, s.BaseContext(nil).Value(key{}))
	})
	t.Run("long_poll_outlives_the_read_timeout", func(t *testing.T) {
		// ReadTimeout's deadline is lifted once the request is read: a
		// wait longer than it is not cut. With a ReadTimeout of 1 ns the
		// deadline has passed before the handler runs; were it kept, the
		// server's read of the idle connection would fail and cancel the
		// long poll, which would then answer nothing.
		e := newEnv(t, ServerConfig{})
		hs := NewHTTPServer(e.server, nil)
		hs.ReadTimeout = time.Nanosecond
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		go func() { _ = hs.Serve(ln) }()
		t.Cleanup(func() { _ = hs.Close() })
		q := e.ask(t, "job-1", textQ)
		got := make(chan reply, 1)
		go func() { got <- callURL(t, "GET", "http://"+ln.Addr().String()+"/api/questions/"+q.ID+"?wait=1m", "") }()
		e.w.until(t, "the long poll waits", func(in, _, _ int) bool { return in == 1 })
		e.answer(t, q.ID, hitl.Response{Value: "friday"})
		r := recv(t, got)
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Equal(t, "answered", sub(t, r.body, "question")["status"])
	})
}

// smallBuffers shrinks the send buffer of every accepted connection, so
// that a reader that stops reading blocks the server's writes soon.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

func TestEventsDropReadersThatStopReading(t *testing.T) {
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New()})
	srv := NewServer(servicesOf(svc), ServerConfig{StreamWriteTimeout: 50 * time.Millisecond, Logger: discard})
	t.Cleanup(srv.Close)
	ended := make(chan struct{})
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeHTTP(w, r)
		if r.URL.Path == "/api/events" {
			close(ended)
		}
	}))
	ts.Listener = smallBuffers{ts.Listener}
	ts.Start()
	t.Cleanup(ts.Close)

	// Far more events than the kernel buffers on both ends hold.
	ctx := principaltest.As(context.Background(), "api:ci")
	text := strings.Repeat("x", hitl.MaxQuestionLen-10)
	for i := range 300 {
		_, _, err := svc.Questions.Create(ctx, "job-1", hitl.NewQuestion{Question: fmt.Sprintf("%d %s", i, text)})
		require.NoError(t, err)
	}

	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	_, err = fmt.Fprintf(conn, "GET /api/events?after=0 HTTP/1.1\r\nHost: %s\r\n\r\n", ts.Listener.Addr())
	require.NoError(t, err)
	// The client never reads. The stream must end on its own.
	select {
	case <-ended:
	case <-time.After(testDeadline):
		t.Fatal("the stream of a client that stopped reading did not end")
	}
}
