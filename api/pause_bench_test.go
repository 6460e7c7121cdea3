package api

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/steer"
	bolt "go.etcd.io/bbolt"
)

// BenchmarkPauseResume measures steering as the agent feels it, over HTTP
// on loopback with the bbolt store, each against the floor of one lone raw
// bbolt commit of a question-sized value and one loopback round trip,
// interleaved in the same loop:
//
//   - pause → woken: from sending a pause (the steering protocol's REQUEST) until the
//     agent's long poll of its run (GET /api/runs/{id}?after=) returns it
//     paused;
//   - resume → returned: from sending a resume until the agent's
//     Checkpoint, held by the server while paused, returns. The timer
//     starts once the checkpoint's own report is committed (the run's
//     version passed the pause's), so it is the server that holds it.
func BenchmarkPauseResume(b *testing.B) {
	ctx := context.Background()
	_, c := steerServer(b)
	loop, err := c.Run(ctx, "bench-loop", client.RunOptions{Model: "haiku"})
	if err != nil {
		b.Fatal(err)
	}
	defer loop.Close()
	run, err := c.WaitRun(ctx, "bench-loop", 0)
	if err != nil {
		b.Fatal(err)
	}
	seen := run.Version
	floor := newFloor(b, filepath.Join(b.TempDir(), "raw.db"))
	control := func(i int, cmd steer.Command) {
		msgs, err := c.Control(ctx, steer.NewRequest(fmt.Sprintf("req-%d-%s", i, cmd), cmd, "bench-loop", time.Now(), steer.ControlPayload{}))
		if err != nil || len(msgs) != 2 || msgs[1].Payload.Status != steer.ResultSuccess {
			b.Errorf("%s: %v %+v", cmd, err, msgs)
		}
	}

	var paused, resumed, flo latencies
	for i := 0; b.Loop(); i++ {
		// pause → woken
		woken := make(chan *hitl.Run, 1)
		go func() {
			run, err := c.WaitRun(ctx, "bench-loop", seen)
			if err != nil {
				b.Error(err)
			}
			woken <- run
		}()
		start := time.Now()
		go control(i, steer.CommandPause)
		for {
			run := <-woken
			if run == nil {
				b.FailNow()
			}
			seen = run.Version
			if run.Control.Status == steer.RunPaused {
				break
			}
			go func() { // woken by another change of the run: wait on
				run, _ := c.WaitRun(ctx, "bench-loop", seen)
				woken <- run
			}()
		}
		paused = append(paused, time.Since(start))

		// resume → returned
		returned := make(chan error, 1)
		go func() {
			_, err := loop.Checkpoint(ctx, i)
			returned <- err
		}()
		if run, err := c.WaitRun(ctx, "bench-loop", seen); err != nil || run.Control.Status != steer.RunPaused {
			b.Fatalf("the checkpoint's report while paused: %v %+v", err, run)
		}
		start = time.Now()
		go control(i, steer.CommandResume)
		if err := <-returned; err != nil {
			b.Fatal(err)
		}
		resumed = append(resumed, time.Since(start))
		run, err := c.WaitRun(ctx, "bench-loop", 0)
		if err != nil {
			b.Fatal(err)
		}
		seen = run.Version

		flo = append(flo, floor.once(b, uint64(i)))
	}
	b.ReportMetric(paused.p(0.5), "pause-p50-µs")
	b.ReportMetric(resumed.p(0.5), "resume-p50-µs")
	b.ReportMetric(flo.p(0.5), "floor-p50-µs")
	b.ReportMetric(paused.p(0.5)/flo.p(0.5), "pause-x-floor")
	b.ReportMetric(resumed.p(0.5)/flo.p(0.5), "resume-x-floor")
}

// once is the floor of one steering step: one lone raw commit and one
// loopback round trip.
func (f *floor) once(b *testing.B, i uint64) time.Duration {
	start := time.Now()
	key := []byte(fmt.Sprintf("once-%020d", i))
	if err := f.db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("raw")).Put(key, f.value) }); err != nil {
		b.Fatal(err)
	}
	get(b, f.hc, f.url)
	return time.Since(start)
}
