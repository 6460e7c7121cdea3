package api

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/service"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/stretchr/testify/require"
)

// serve serves h on l until the test ends.
func serve(t *testing.T, l net.Listener, h http.Handler) *http.Server {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := hs.Serve(l); !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	}()
	t.Cleanup(func() { _ = hs.Close() })
	return hs
}

func TestWaitSurvivesServerRestart(t *testing.T) {
	svc := service.NewService(memstore.New(), service.ServiceConfig{Notifier: notify.New()})
	w := newWatched(svc.Questions)
	cfg := ServerConfig{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	first := serve(t, l, NewServer(over(w, svc), cfg))

	c := client.NewClient("http://"+addr, "", client.WithRetryBackoff(5*time.Millisecond, 50*time.Millisecond))
	q, _, err := c.Create(context.Background(), "job-1", textQ)
	require.NoError(t, err)
	done := make(chan asked, 1)
	go func() {
		q, err := c.Wait(context.Background(), q.ID)
		done <- asked{q, err}
	}()
	w.until(t, "the waiter is parked on the first server", func(in, _, _ int) bool { return in == 1 })

	require.NoError(t, first.Close())
	w.until(t, "the first long poll has ended", func(_, _, left int) bool { return left == 1 })
	select {
	case r := <-done:
		t.Fatalf("Wait returned while the server was down: %+v", r)
	default:
	}

	l2, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	serve(t, l2, NewServer(over(w, svc), cfg))
	w.until(t, "the waiter is parked on the second server", func(in, entered, _ int) bool { return in == 1 && entered >= 2 })

	_, err = svc.Questions.Answer(principaltest.As(context.Background(), "slack:U1"), q.ID, hitl.Response{Value: "Friday"})
	require.NoError(t, err)
	r := recv(t, done)
	require.NoError(t, r.err)
	require.Equal(t, hitl.StatusAnswered, r.q.Status)
	require.Equal(t, "Friday", r.q.Response.Value)
}
