package api

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/steer"
	"github.com/hitlbot/hitl/store"
)

// steerServer is the API over a Service on a bbolt file in a temp dir,
// served on loopback, with a client as the local person.
func steerServer(b *testing.B) (*service.Service, *client.Client) {
	b.Helper()
	db, err := store.Open(filepath.Join(b.TempDir(), "hitl.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New()})
	srv := NewServer(servicesOf(svc), ServerConfig{Logger: discard})
	b.Cleanup(srv.Close)
	return svc, client.NewClient(benchServer(b, srv), "")
}

// BenchmarkControlRequestToResult measures the steering protocol's REQUEST → RESULT
// over HTTP on loopback with the bbolt store: the ACK's durable commit,
// the command's commit (run state, cached RESULT, RESULT and loop events)
// and one round trip. Pause and resume alternate on one active run.
func BenchmarkControlRequestToResult(b *testing.B) {
	ctx := context.Background()
	_, c := steerServer(b)
	loop, err := c.Run(ctx, "bench-loop", client.RunOptions{Model: "haiku", Max: 10})
	if err != nil {
		b.Fatal(err)
	}
	defer loop.Close()
	cmds := [2]steer.Command{steer.CommandPause, steer.CommandResume}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		msgs, err := c.Control(ctx, steer.NewRequest(fmt.Sprintf("req-%d", i), cmds[i%2], "bench-loop", time.Now(), steer.ControlPayload{}))
		if err != nil || len(msgs) != 2 || msgs[1].Payload.Status != steer.ResultSuccess {
			b.Fatalf("%v %+v", err, msgs)
		}
	}
}

// BenchmarkCheckpointRunning measures Run.Checkpoint while the run is
// running: one HTTP round trip and one durable commit of the run's state
// (the STATE event and the run record), what an agent pays per iteration.
func BenchmarkCheckpointRunning(b *testing.B) {
	ctx := context.Background()
	_, c := steerServer(b)
	loop, err := c.Run(ctx, "bench-loop", client.RunOptions{Model: "haiku"})
	if err != nil {
		b.Fatal(err)
	}
	defer loop.Close()
	b.ResetTimer()
	for i := 1; b.Loop(); i++ {
		if _, err := loop.Checkpoint(ctx, i); err != nil {
			b.Fatal(err)
		}
	}
}
