package main

import (
	"context"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/runhandle"
)

// runHandles is each question's run as people read it: its handle
// (runhandle.Of, what hitl runs shows; --json has the full id), or its id
// when the handle cannot be read.
func runHandles(ctx context.Context, f runhandle.Prefixer, qs []*hitl.Question) map[string]string {
	out := map[string]string{}
	for _, q := range qs {
		if _, ok := out[q.RunID]; ok {
			continue
		}
		h, err := runhandle.Of(ctx, f, q.RunID)
		if err != nil || h == "" {
			h = q.RunID
		}
		out[q.RunID] = h
	}
	return out
}

// runHandle is run id as people read it (runHandles).
func runHandle(ctx context.Context, f runhandle.Prefixer, id string) string {
	return runHandles(ctx, f, []*hitl.Question{{RunID: id}})[id]
}
