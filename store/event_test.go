package store

import (
	"context"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/require"
)

func TestEvents(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	svc := newService(db, newClock())
	q1 := ask(t, svc, "job-1", 30)
	q2 := ask(t, svc, "job-1", 30)
	q3 := ask(t, svc, "job-2", 30)
	_, err := svc.Answer(as("slack:U1"), q2.ID, hitl.Response{Value: "yes"})
	require.NoError(t, err)
	_, err = svc.Cancel(as("slack:U1"), q1.ID, "")
	require.NoError(t, err)

	type entry struct {
		Seq  uint64
		Type hitl.EventType
		ID   string
	}
	list := func(evs []*hitl.Event) []entry {
		out := []entry{}
		for _, ev := range evs {
			out = append(out, entry{ev.Seq, ev.Type, ev.QuestionID})
		}
		return out
	}
	all := []entry{
		{1, hitl.EventQuestionAsked, q1.ID},
		{2, hitl.EventQuestionAsked, q2.ID},
		{3, hitl.EventQuestionAsked, q3.ID},
		{4, hitl.EventQuestionAnswered, q2.ID},
		{5, hitl.EventQuestionCancelled, q1.ID},
	}

	t.Run("all events come in sequence order", func(t *testing.T) {
		evs, err := db.Events(ctx, 0, 0)
		require.NoError(t, err)
		require.Equal(t, all, list(evs))
		require.Equal(t, "slack:U1", evs[3].Actor)
		require.Equal(t, "yes", evs[3].Response.Value)
	})
	t.Run("after skips what was read and limit bounds the page", func(t *testing.T) {
		evs, err := db.Events(ctx, 2, 2)
		require.NoError(t, err)
		require.Equal(t, all[2:4], list(evs))
	})
	t.Run("after the last event there is nothing", func(t *testing.T) {
		for _, after := range []uint64{5, 6, ^uint64(0)} {
			evs, err := db.Events(ctx, after, 10)
			require.NoError(t, err)
			require.Empty(t, evs)
		}
	})
}
