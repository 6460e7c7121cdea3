package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runMail is the contract of hitl.MailOutbox (part.go).
func runMail(t *testing.T, open func(t *testing.T) hitl.MailOutbox) {
	ctx := context.Background()
	seqs := func(ms []hitl.Mail) []uint64 {
		out := []uint64{}
		for _, m := range ms {
			out = append(out, m.Seq)
		}
		return out
	}
	never := t0.Add(1000 * time.Hour) // a claim that outlives the test
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
		due, err := box.ClaimMail(ctx, t0.Add(time.Minute), never, 1)
		require.NoError(t, err)
		assert.Equal(t, []uint64{ms[1].Seq}, seqs(due), "earliest first, up to the limit")
		assert.Equal(t, "U2", due[0].User)
		assert.Equal(t, hitl.EventQuestionEscalated, due[0].Nudge)
		assert.True(t, due[0].NextAt.Equal(never), "a claimed mail is due when its claim runs out")
		due, err = box.ClaimMail(ctx, t0.Add(time.Minute), never, 0)
		require.NoError(t, err)
		assert.Equal(t, []uint64{ms[0].Seq}, seqs(due), "claimed ones and later ones are not due")
	})
	t.Run("a claim runs out: the mail is due again", func(t *testing.T) {
		box := open(t)
		ms := []hitl.Mail{{QuestionID: "q_1", User: "U1", NextAt: t0}}
		require.NoError(t, box.EnqueueMail(ctx, 1, ms))
		until := t0.Add(5 * time.Minute)
		due, err := box.ClaimMail(ctx, t0, until, 0)
		require.NoError(t, err)
		require.Len(t, due, 1)
		due, err = box.ClaimMail(ctx, until.Add(-time.Nanosecond), never, 0)
		require.NoError(t, err)
		assert.Empty(t, due, "claimed until then")
		due, err = box.ClaimMail(ctx, until, never, 0)
		require.NoError(t, err)
		assert.Equal(t, []uint64{ms[0].Seq}, seqs(due), "the claimer died: due to another")
	})
	t.Run("claimers at once get each mail once", func(t *testing.T) {
		box := open(t)
		var ms []hitl.Mail
		for i := range 40 {
			ms = append(ms, hitl.Mail{QuestionID: "q_1", User: "U1", NextAt: t0.Add(time.Duration(i))})
		}
		require.NoError(t, box.EnqueueMail(ctx, 1, ms))
		var mu sync.Mutex
		got := map[uint64]int{}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					due, err := box.ClaimMail(ctx, t0.Add(time.Hour), never, 3)
					if !assert.NoError(t, err) || len(due) == 0 {
						return
					}
					mu.Lock()
					for _, m := range due {
						got[m.Seq]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		assert.Len(t, got, len(ms), "every mail claimed")
		for seq, n := range got {
			assert.Equal(t, 1, n, "mail %d claimed %d times", seq, n)
		}
	})
	t.Run("the mail of events at or before the cursor is enqueued once", func(t *testing.T) {
		box := open(t)
		first := []hitl.Mail{{QuestionID: "q_1", User: "U1", Event: 3, NextAt: t0}, {QuestionID: "q_2", User: "U2", Event: 5, NextAt: t0}}
		require.NoError(t, box.EnqueueMail(ctx, 5, first))
		again := []hitl.Mail{{QuestionID: "q_2", User: "U2", Event: 5, NextAt: t0}, {QuestionID: "q_3", User: "U3", Event: 6, NextAt: t0}}
		require.NoError(t, box.EnqueueMail(ctx, 6, again))
		assert.Zero(t, again[0].Seq, "another process read event 5 too: left out")
		assert.NotZero(t, again[1].Seq)
		require.NoError(t, box.EnqueueMail(ctx, 4, nil), "a late enqueuer")
		cur, err := box.MailCursor(ctx)
		require.NoError(t, err)
		assert.Equal(t, uint64(6), cur, "the cursor only moves on")
		due, err := box.ClaimMail(ctx, t0, never, 0)
		require.NoError(t, err)
		assert.Equal(t, []uint64{first[0].Seq, first[1].Seq, again[1].Seq}, seqs(due))
	})
	t.Run("a retry moves the mail; a completed one is gone", func(t *testing.T) {
		box := open(t)
		ms := []hitl.Mail{{QuestionID: "q_1", User: "U1", NextAt: t0}, {QuestionID: "q_2", User: "U2", NextAt: t0.Add(time.Second)}}
		require.NoError(t, box.EnqueueMail(ctx, 1, ms))
		claimed, err := box.ClaimMail(ctx, t0, never, 1)
		require.NoError(t, err)
		require.Len(t, claimed, 1)
		retry := claimed[0]
		retry.Attempts, retry.NextAt, retry.LastError = 1, t0.Add(time.Minute), "421 try later"
		require.NoError(t, box.RetryMail(ctx, retry))
		due, err := box.ClaimMail(ctx, t0.Add(time.Minute), never, 0)
		require.NoError(t, err)
		require.Len(t, due, 2)
		assert.Equal(t, []uint64{ms[1].Seq, ms[0].Seq}, seqs(due), "the retry is due at its new time")
		assert.Equal(t, 1, due[1].Attempts)
		assert.Equal(t, "421 try later", due[1].LastError)
		assert.Equal(t, "q_1", due[1].QuestionID)
		require.NoError(t, box.CompleteMail(ctx, due[1]))
		require.NoError(t, box.CompleteMail(ctx, due[1]), "twice is fine")
		due, err = box.ClaimMail(ctx, never, never.Add(time.Hour), 0)
		require.NoError(t, err)
		assert.Equal(t, []uint64{ms[1].Seq}, seqs(due))
		assert.Equal(t, fault.ENOTFOUND, fault.Code(box.RetryMail(ctx, retry)), "a completed mail is not retried")
	})
	runMailClaims(t, open)
}
