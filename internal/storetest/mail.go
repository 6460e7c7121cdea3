package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RunMail is the contract of hitl.MailOutbox, against outboxes made by
// open (a new, empty one per call).
func RunMail(t *testing.T, open func(t *testing.T) hitl.MailOutbox) {
	ctx := context.Background()
	seqs := func(ms []hitl.Mail) []uint64 {
		out := []uint64{}
		for _, m := range ms {
			out = append(out, m.Seq)
		}
		return out
	}
	t.Run("mail is enqueued with the cursor and comes due in order", func(t *testing.T) {
		box := open(t)
		cur, err := box.MailCursor(ctx)
		require.NoError(t, err)
		assert.Zero(t, cur)
		ms := []hitl.Mail{
			{QuestionID: "q_1", User: "U1", Nudge: hitl.EventQuestionReminded, NextAt: t0.Add(time.Minute)},
			{QuestionID: "q_2", User: "U2", Nudge: hitl.EventQuestionEscalated, NextAt: t0},
			{QuestionID: "q_3", User: "U3", Nudge: hitl.EventQuestionReminded, NextAt: t0.Add(time.Hour)},
		}
		require.NoError(t, box.EnqueueMail(ctx, 42, ms))
		cur, err = box.MailCursor(ctx)
		require.NoError(t, err)
		assert.Equal(t, uint64(42), cur)
		require.NotZero(t, ms[0].Seq, "Seq is set")
		due, err := box.DueMail(ctx, t0.Add(time.Minute), 0)
		require.NoError(t, err)
		assert.Equal(t, []uint64{ms[1].Seq, ms[0].Seq}, seqs(due), "earliest first; later ones are not due")
		assert.Equal(t, "U2", due[0].User)
		due, err = box.DueMail(ctx, t0.Add(2*time.Hour), 1)
		require.NoError(t, err)
		assert.Equal(t, []uint64{ms[1].Seq}, seqs(due), "up to the limit")
	})
	t.Run("a retry moves the mail; a completed one is gone", func(t *testing.T) {
		box := open(t)
		ms := []hitl.Mail{{QuestionID: "q_1", User: "U1", NextAt: t0}, {QuestionID: "q_2", User: "U2", NextAt: t0}}
		require.NoError(t, box.EnqueueMail(ctx, 1, ms))
		retry := ms[0]
		retry.Attempts, retry.NextAt, retry.LastError = 1, t0.Add(time.Minute), "421 try later"
		require.NoError(t, box.RetryMail(ctx, retry))
		due, err := box.DueMail(ctx, t0, 0)
		require.NoError(t, err)
		assert.Equal(t, []uint64{ms[1].Seq}, seqs(due))
		due, err = box.DueMail(ctx, t0.Add(time.Minute), 0)
		require.NoError(t, err)
		require.Len(t, due, 2)
		assert.Equal(t, 1, due[1].Attempts)
		assert.Equal(t, "421 try later", due[1].LastError)
		require.NoError(t, box.CompleteMail(ctx, ms[0].Seq))
		require.NoError(t, box.CompleteMail(ctx, ms[0].Seq), "twice is fine")
		due, err = box.DueMail(ctx, t0.Add(time.Hour), 0)
		require.NoError(t, err)
		assert.Equal(t, []uint64{ms[1].Seq}, seqs(due))
		assert.Equal(t, hitl.ENOTFOUND, hitl.ErrorCode(box.RetryMail(ctx, retry)), "a completed mail is not retried")
	})
}
