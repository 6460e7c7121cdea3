package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// procIO reads this process's write counters from /proc/self/io: bytes
// passed to write calls (wchar) and the number of write calls (syscw).
func procIO(b *testing.B) (wchar, syscw uint64) {
	b.Helper()
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		b.Skipf("no /proc/self/io: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, value, ok := bytes.Cut(sc.Bytes(), []byte(": "))
		if !ok {
			continue
		}
		n, _ := strconv.ParseUint(string(value), 10, 64)
		switch string(name) {
		case "wchar":
			wchar = n
		case "syscw":
			syscw = n
		}
	}
	return wchar, syscw
}

// written runs fn alone and returns the bytes and write calls it cost,
// and appends how long it took to took.
func written(b *testing.B, took *[]time.Duration, fn func()) (bytes, calls uint64) {
	b.Helper()
	w0, c0 := procIO(b)
	start := time.Now()
	fn()
	*took = append(*took, time.Since(start))
	w1, c1 := procIO(b)
	return w1 - w0, c1 - c0
}

// median is the middle of d, in microseconds.
func median(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[len(s)/2].Nanoseconds()) / 1e3
}

// BenchmarkWriteBytes measures what one lone create and one lone answer
// (through service.Service, nothing else writing) pass to the disk, against a
// raw bbolt commit of one question-sized value into a bucket that holds as
// many values as the store holds questions, all three in the same loop.
// The store starts with 1,000 questions (half answered) in 10 runs.
func BenchmarkWriteBytes(b *testing.B) {
	const prefill = 1000
	dir := b.TempDir()
	db, err := Open(filepath.Join(dir, "hitl.db"))
	require.NoError(b, err)
	defer db.Close()
	svc := prefillStore(b, db, prefill)
	ctx := principaltest.As(context.Background(), "api:bench")
	person := principaltest.As(context.Background(), "slack:U024BE7LH")

	q, err := benchQuestion.Build("q_0123456789abcdef", "job-bench", "api:bench", time.Now().UTC(), hitl.DefaultTimeouts())
	require.NoError(b, err)
	value, err := json.Marshal(q)
	require.NoError(b, err)
	raw, err := bolt.Open(filepath.Join(dir, "raw.db"), 0o600, boltOptions())
	require.NoError(b, err)
	defer raw.Close()
	require.NoError(b, raw.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucket([]byte("raw"))
		for i := range uint64(prefill) {
			if err == nil {
				err = bk.Put(u64(i), value)
			}
		}
		return err
	}))
	var n atomic.Uint64
	n.Store(prefill)

	var createB, createC, answerB, answerC, rawB, rawC uint64
	var createT, answerT, rawT []time.Duration
	i := 0
	for b.Loop() {
		i++
		var created *hitl.Question
		bb, cc := written(b, &createT, func() {
			created, _, err = svc.Questions.Create(ctx, fmt.Sprintf("job-%d", i%10), benchQuestion)
		})
		require.NoError(b, err)
		createB, createC = createB+bb, createC+cc
		bb, cc = written(b, &answerT, func() {
			_, err = svc.Questions.Answer(person, created.ID, hitl.Response{Value: "deploy"})
		})
		require.NoError(b, err)
		answerB, answerC = answerB+bb, answerC+cc
		bb, cc = written(b, &rawT, func() {
			key := u64(n.Add(1))
			err = raw.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("raw")).Put(key, value) })
		})
		require.NoError(b, err)
		rawB, rawC = rawB+bb, rawC+cc
	}
	per := func(v uint64) float64 { return float64(v) / float64(i) }
	b.ReportMetric(per(createB), "create-B")
	b.ReportMetric(per(createC), "create-writes")
	b.ReportMetric(per(answerB), "answer-B")
	b.ReportMetric(per(answerC), "answer-writes")
	b.ReportMetric(per(rawB), "raw-B")
	b.ReportMetric(per(rawC), "raw-writes")
	b.ReportMetric(float64(createB)/float64(rawB), "create-x-raw")
	b.ReportMetric(float64(answerB)/float64(rawB), "answer-x-raw")
	b.ReportMetric(median(createT), "create-p50-µs")
	b.ReportMetric(median(answerT), "answer-p50-µs")
	b.ReportMetric(median(rawT), "raw-p50-µs")
}

// BenchmarkCreateVsBatch measures durable creates through service.Service
// against raw bbolt Batch commits of one question-sized value, in the same
// loop: each iteration runs a round of 16 concurrent writers doing 25
// creates each, then the same round of raw Batch commits, so load on the
// machine hits both. It reports the ratio of their rates.
func BenchmarkCreateVsBatch(b *testing.B) {
	const writers, perWriter = 16, 25
	dir := b.TempDir()
	db, err := Open(filepath.Join(dir, "hitl.db"))
	require.NoError(b, err)
	defer db.Close()
	svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New()})
	ctx := principaltest.As(context.Background(), "api:bench")

	q, err := benchQuestion.Build("q_0123456789abcdef", "job-bench", "api:bench", time.Now().UTC(), hitl.DefaultTimeouts())
	require.NoError(b, err)
	value, err := json.Marshal(q)
	require.NoError(b, err)
	raw, err := bolt.Open(filepath.Join(dir, "raw.db"), 0o600, boltOptions())
	require.NoError(b, err)
	defer raw.Close()
	raw.MaxBatchDelay = rawBatchDelay
	require.NoError(b, raw.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket([]byte("raw"))
		return err
	}))
	var n atomic.Uint64

	round := func(op func() error) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				for range perWriter {
					if err := op(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	// txid is the id of the last commit of bdb: their difference counts
	// the commits between.
	txid := func(bdb *bolt.DB) int {
		tx, err := bdb.Begin(false)
		require.NoError(b, err)
		defer func() { _ = tx.Rollback() }()
		return tx.ID()
	}
	var ours, rawT time.Duration
	var oursB, rawB uint64
	var oursTx, rawTx int
	for b.Loop() {
		t0, r0 := txid(db.bolt), txid(raw)
		w0, _ := procIO(b)
		ours += round(func() error {
			_, _, err := svc.Questions.Create(ctx, "job-bench", benchQuestion)
			return err
		})
		w1, _ := procIO(b)
		rawT += round(func() error {
			key := u64(n.Add(1))
			return raw.Batch(func(tx *bolt.Tx) error { return tx.Bucket([]byte("raw")).Put(key, value) })
		})
		w2, _ := procIO(b)
		oursB, rawB = oursB+w1-w0, rawB+w2-w1
		oursTx, rawTx = oursTx+txid(db.bolt)-t0, rawTx+txid(raw)-r0
	}
	ops := float64(b.N * writers * perWriter)
	b.ReportMetric(ops/ours.Seconds(), "creates/s")
	b.ReportMetric(ops/rawT.Seconds(), "raw-batch/s")
	b.ReportMetric(float64(oursB)/ops, "create-B")
	b.ReportMetric(float64(rawB)/ops, "raw-B")
	b.ReportMetric(rawT.Seconds()/ours.Seconds(), "ours-÷-raw")
	b.ReportMetric(ops/float64(oursTx), "creates/commit")
	b.ReportMetric(ops/float64(rawTx), "raw/commit")
	b.ReportMetric(float64(oursB)/float64(oursTx), "create-B/commit")
	b.ReportMetric(float64(rawB)/float64(rawTx), "raw-B/commit")
}
