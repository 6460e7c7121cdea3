package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInvokedAs(t *testing.T) {
	dir := t.TempDir()
	onPath := filepath.Join(dir, "bin", "hitl")
	built := filepath.Join(dir, "clone", "hitl")
	for _, f := range []string{onPath, built} {
		require.NoError(t, os.MkdirAll(filepath.Dir(f), 0o755))
		require.NoError(t, os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755))
	}
	found := func(string) (string, error) { return onPath, nil }
	none := func(string) (string, error) { return "", errors.New("not found") }
	for _, tc := range []struct {
		name, arg0 string
		lookPath   func(string) (string, error)
		want       string
	}{
		{"found on PATH by name", "hitl", found, "hitl"},
		{"by name, whatever PATH holds", "hitl", none, "hitl"},
		{"a path to the hitl PATH finds", onPath, found, "hitl"},
		{"the ./hitl the tour builds", "./hitl", none, "./hitl"},
		{"a built copy other than PATH's", built, found, built},
		{"a relative path", "bin/hitl", none, "bin/hitl"},
		{"go run's temporary binary", "/tmp/go-build123/b001/exe/hitl", none, "hitl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, invokedAs(tc.arg0, tc.lookPath))
		})
	}
}

// TestHintsNameHowHitlWasRun: run as ./hitl, every hint says ./hitl.
func TestHintsNameHowHitlWasRun(t *testing.T) {
	m := startMain(t)
	ctx := context.Background()
	name := "./hitl"
	self.Store(&name)
	t.Cleanup(func() { self.Store(nil) })
	r := cli(ctx, m, "", "ask", "Region?", "--options", "eu,us", "--no-wait", "--run", "tour")
	require.Equal(t, exitNeedsInput, r.code, r.stderr)
	q := waitPending(t, m, "tour")
	assert.Contains(t, r.stderr, "Answer it with: ./hitl answer "+q.ID+" VALUE")
	assert.NotContains(t, r.stderr, " hitl answer")
	r = cli(ctx, m, "", "ask", "Ship?", "--approval", "--no-wait", "--run", "tour")
	require.Equal(t, exitNeedsInput, r.code, r.stderr)
	assert.Contains(t, r.stderr, "./hitl answer q_")
	assert.Contains(t, cli(ctx, m, "", "runs", "--all", "--json").stdout, "tour")
	r = cli(ctx, m, "", "runs")
	assert.Contains(t, r.stdout, "tour")
	r = cli(ctx, m, "", "cancel", "tour")
	require.Equal(t, exitNotFound, r.code, r.stderr) // a run of questions only has no agent to stop
	assert.Contains(t, cli(ctx, startMain(t), "", "runs").stdout, "(./hitl runs --all lists finished ones too.)")
}
