package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runMailClaims is the contract of a mail's claim (hitl.MailOutbox): only
// the last claimer completes or retries a mail. A mailer paused past its
// lease (its mail claimed again by another) is refused with ECONFLICT, so
// it cannot remove the mail the other is sending, nor move it due again
// while the other holds it (a second send).
func runMailClaims(t *testing.T, open func(t *testing.T) hitl.MailOutbox) {
	ctx := context.Background()
	lease := 5 * time.Minute
	// claimed enqueues one mail due at t0 and claims it as A, then, once
	// A's lease ran out, as B.
	claimed := func(t *testing.T) (box hitl.MailOutbox, a, b hitl.Mail) {
		t.Helper()
		box = open(t)
		ms := []hitl.Mail{{QuestionID: "q_1", User: "U1", NextAt: t0}}
		require.NoError(t, box.EnqueueMail(ctx, 1, ms))
		byA, err := box.ClaimMail(ctx, t0, t0.Add(lease), 0)
		require.NoError(t, err)
		require.Len(t, byA, 1)
		byB, err := box.ClaimMail(ctx, t0.Add(lease), t0.Add(2*lease), 0)
		require.NoError(t, err)
		require.Len(t, byB, 1, "A's lease ran out: B claims the mail")
		require.NotEqual(t, byA[0].Claim, byB[0].Claim, "each claim has its own token")
		return box, byA[0], byB[0]
	}
	retried := func(m hitl.Mail, next time.Time) hitl.Mail {
		m.Attempts, m.NextAt, m.LastError = m.Attempts+1, next, "421 try later"
		return m
	}
	t.Run("a claim run out: its retry is refused, the new claimer's works", func(t *testing.T) {
		box, a, b := claimed(t)
		assert.Equal(t, fault.ECONFLICT, fault.Code(box.RetryMail(ctx, retried(a, t0.Add(lease+time.Second)))))
		due, err := box.ClaimMail(ctx, t0.Add(2*lease-time.Nanosecond), t0.Add(3*lease), 0)
		require.NoError(t, err)
		assert.Empty(t, due, "A's refused retry did not make B's mail due again")
		require.NoError(t, box.RetryMail(ctx, retried(b, t0.Add(3*lease))))
		due, err = box.ClaimMail(ctx, t0.Add(3*lease), t0.Add(4*lease), 0)
		require.NoError(t, err)
		require.Len(t, due, 1, "due at B's retry")
		assert.Equal(t, 1, due[0].Attempts)
	})
	t.Run("a claim run out: its completion is refused, the new claimer's works", func(t *testing.T) {
		box, a, b := claimed(t)
		assert.Equal(t, fault.ECONFLICT, fault.Code(box.CompleteMail(ctx, a)))
		require.NoError(t, box.RetryMail(ctx, retried(b, t0.Add(2*lease))), "B still holds the mail A tried to complete")
		due, err := box.ClaimMail(ctx, t0.Add(2*lease), t0.Add(3*lease), 0)
		require.NoError(t, err)
		require.Len(t, due, 1)
		require.NoError(t, box.CompleteMail(ctx, due[0]))
		due, err = box.ClaimMail(ctx, t0.Add(100*lease), t0.Add(101*lease), 0)
		require.NoError(t, err)
		assert.Empty(t, due, "completed by its last claimer")
		assert.NoError(t, box.CompleteMail(ctx, a), "a mail no longer queued: nothing to refuse")
		assert.Equal(t, fault.ENOTFOUND, fault.Code(box.RetryMail(ctx, a)))
	})
	t.Run("a claim that ran out with nobody claiming since still completes", func(t *testing.T) {
		box := open(t)
		ms := []hitl.Mail{{QuestionID: "q_1", User: "U1", NextAt: t0}}
		require.NoError(t, box.EnqueueMail(ctx, 1, ms))
		byA, err := box.ClaimMail(ctx, t0, t0.Add(lease), 0)
		require.NoError(t, err)
		require.Len(t, byA, 1)
		require.NoError(t, box.CompleteMail(ctx, byA[0]), "nobody else holds it")
		due, err := box.ClaimMail(ctx, t0.Add(100*lease), t0.Add(101*lease), 0)
		require.NoError(t, err)
		assert.Empty(t, due)
	})
}
