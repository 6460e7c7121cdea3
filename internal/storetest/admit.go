package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCreateAdmit: CreateQuestion asks admit about the run as it is in
// its own transaction, and a refusal writes nothing.
func testCreateAdmit(t *testing.T, e *env) {
	ctx := context.Background()
	refused := fault.Errorf(fault.EFORBIDDEN, "not yours")
	var seen []*hitl.Run
	admitAs := func(asker string) func(*hitl.Run) error {
		return func(run *hitl.Run) error {
			seen = append(seen, run)
			if run != nil && run.Asker != asker {
				return refused
			}
			return nil
		}
	}
	admit := admitAs(agent.ID)
	_, created, err := e.store.CreateQuestion(ctx, raw("q_1", "run-1", t0), &hitl.Event{Type: hitl.EventQuestionAsked, QuestionID: "q_1", RunID: "run-1", At: t0}, admit)
	require.NoError(t, err)
	require.True(t, created)
	require.Len(t, seen, 1)
	assert.Nil(t, seen[0], "a new run has no record yet")

	_, _, err = e.store.CreateQuestion(ctx, raw("q_2", "run-1", t0.Add(time.Second)), nil, admit)
	require.NoError(t, err)
	require.Len(t, seen, 2)
	require.NotNil(t, seen[1])
	assert.Equal(t, agent.ID, seen[1].Asker, "the first question made the run its asker's")
	assert.Equal(t, 1, seen[1].Questions, "admit sees the run before this question")

	before := lastSeq(t, e.store)
	theirs := raw("q_3", "run-1", t0.Add(2*time.Second))
	theirs.Asker = "api:someone-else"
	_, created, err = e.store.CreateQuestion(ctx, theirs, &hitl.Event{Type: hitl.EventQuestionAsked, QuestionID: "q_3", RunID: "run-1", At: t0}, admitAs(theirs.Asker))
	assert.True(t, err == error(refused), "admit's error is returned as is: %v", err)
	assert.False(t, created)
	_, err = e.store.Question(ctx, "q_3")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "nothing written")
	assert.Equal(t, before, lastSeq(t, e.store), "no event")
	run, err := e.store.Run(ctx, "run-1")
	require.NoError(t, err)
	assert.Equal(t, 2, run.Questions, "the run is as it was")
}

// testCreateAdmitRace: principals starting one run at once, each admitted
// only into a run nobody else owns: exactly one owns it, and every
// question stored is theirs.
func testCreateAdmitRace(t *testing.T, e *env) {
	ctx := context.Background()
	const askers = 8
	var wg sync.WaitGroup
	created := make([]bool, askers)
	for i := range askers {
		wg.Go(func() {
			q := raw(fmt.Sprintf("q_%02d", i), "run-race", t0.Add(time.Duration(i)*time.Millisecond))
			q.Asker = fmt.Sprintf("api:asker-%d", i)
			admit := func(run *hitl.Run) error {
				if run != nil && run.Asker != "" && run.Asker != q.Asker {
					return fault.Errorf(fault.EFORBIDDEN, "run-race is %s's", run.Asker)
				}
				return nil
			}
			_, ok, err := e.store.CreateQuestion(ctx, q, &hitl.Event{Type: hitl.EventQuestionAsked, QuestionID: q.ID, RunID: q.RunID, At: q.CreatedAt}, admit)
			if err != nil {
				assert.Equal(t, fault.EFORBIDDEN, fault.Code(err))
			}
			created[i] = ok
		})
	}
	wg.Wait()
	n := 0
	for _, ok := range created {
		if ok {
			n++
		}
	}
	assert.Equal(t, 1, n, "one asker started the run; the others were refused")
	run, err := e.store.Run(ctx, "run-race")
	require.NoError(t, err)
	page, err := e.store.Questions(ctx, hitl.QuestionFilter{RunID: "run-race"})
	require.NoError(t, err)
	require.Len(t, page.Questions, 1)
	assert.Equal(t, run.Asker, page.Questions[0].Asker)
	assert.Len(t, events(t, e.store, 0), 1, "one event")
}
