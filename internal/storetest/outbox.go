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

// runOutbox is the contract of hitl.Outbox (part.go).
func runOutbox(t *testing.T, open func(t *testing.T) hitl.Outbox) {
	t.Run("a new outbox is empty at cursor 0", func(t *testing.T) { testOutboxEmpty(t, open(t)) })
	t.Run("enqueue moves the cursor and numbers deliveries in order", func(t *testing.T) { testOutboxEnqueue(t, open(t)) })
	t.Run("each target's deliveries come oldest first", func(t *testing.T) { testOutboxOrder(t, open(t)) })
	t.Run("targets with work are listed once each, in byte order, paged", func(t *testing.T) { testOutboxTargets(t, open(t)) })
	t.Run("completing removes the delivery and records where it went", func(t *testing.T) { testOutboxComplete(t, open(t)) })
	t.Run("completing a delivery no longer queued still records", func(t *testing.T) { testOutboxCompleteTwice(t, open(t)) })
	t.Run("the queue length counts what is queued", func(t *testing.T) { testOutboxQueueLength(t, open(t)) })
}

func testOutboxQueueLength(t *testing.T, o hitl.Outbox) {
	ctx := context.Background()
	length := func() int {
		t.Helper()
		n, err := o.QueueLength(ctx)
		require.NoError(t, err)
		return n
	}
	assert.Zero(t, length(), "empty")
	ds := []hitl.Delivery{post("q1", "C1"), post("q2", "C1"), post("q1", "D1")}
	require.NoError(t, o.Enqueue(ctx, 3, ds))
	assert.Equal(t, 3, length())
	require.NoError(t, o.Complete(ctx, ds[0], nil))
	assert.Equal(t, 2, length())
	require.NoError(t, o.Complete(ctx, ds[0], nil))
	assert.Equal(t, 2, length(), "completing twice removes once")
	require.NoError(t, o.Complete(ctx, ds[2], &hitl.Delivered{QuestionID: "q1", Target: "D1", Channel: "D1", TS: "1.000100"}))
	assert.Equal(t, 1, length())
}

func post(q, target string) hitl.Delivery {
	return hitl.Delivery{Kind: "post", QuestionID: q, Target: target}
}

func targets(t *testing.T, o hitl.Outbox, after string, limit int) []string {
	t.Helper()
	got, err := o.Targets(context.Background(), after, limit)
	require.NoError(t, err)
	return append([]string{}, got...)
}

func testOutboxEmpty(t *testing.T, o hitl.Outbox) {
	ctx := context.Background()
	cur, err := o.OutboxCursor(ctx)
	require.NoError(t, err)
	assert.Zero(t, cur)
	assert.Empty(t, targets(t, o, "", 10))
	_, err = o.NextDelivery(ctx, "C1")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	ds, err := o.Delivered(ctx, "q1")
	require.NoError(t, err)
	assert.Empty(t, ds)
	_, err = o.DeliveredAt(ctx, "C1", "1.2")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
}

func testOutboxEnqueue(t *testing.T, o hitl.Outbox) {
	ctx := context.Background()
	first := []hitl.Delivery{post("q1", "C1"), post("q1", "U2")}
	require.NoError(t, o.Enqueue(ctx, 7, first))
	assert.Less(t, first[0].Seq, first[1].Seq, "Seq set, in order")
	assert.NotZero(t, first[0].Seq)
	cur, err := o.OutboxCursor(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(7), cur)

	later := []hitl.Delivery{{Kind: "update", QuestionID: "q1", Target: "C1"}}
	require.NoError(t, o.Enqueue(ctx, 9, later))
	assert.Greater(t, later[0].Seq, first[1].Seq, "later deliveries come after")
	cur, err = o.OutboxCursor(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(9), cur)

	require.NoError(t, o.Enqueue(ctx, 12, nil), "an event that owes nothing still moves the cursor")
	cur, err = o.OutboxCursor(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(12), cur)

	d, err := o.NextDelivery(ctx, "C1")
	require.NoError(t, err)
	assert.Equal(t, first[0], d, "read back as enqueued, with its Seq")
}

func testOutboxOrder(t *testing.T, o hitl.Outbox) {
	ctx := context.Background()
	for i, q := range []string{"q1", "q2", "q3"} {
		require.NoError(t, o.Enqueue(ctx, uint64(i+1), []hitl.Delivery{post(q, "C1"), post(q, "C2")}))
	}
	for _, want := range []string{"q1", "q2", "q3"} {
		d, err := o.NextDelivery(ctx, "C1")
		require.NoError(t, err)
		assert.Equal(t, want, d.QuestionID)
		assert.Equal(t, "C1", d.Target)
		again, err := o.NextDelivery(ctx, "C1")
		require.NoError(t, err)
		assert.Equal(t, d, again, "reading does not take it off the queue")
		require.NoError(t, o.Complete(ctx, d, nil))
	}
	_, err := o.NextDelivery(ctx, "C1")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "an emptied queue")
	d, err := o.NextDelivery(ctx, "C2")
	require.NoError(t, err)
	assert.Equal(t, "q1", d.QuestionID, "another target's queue is its own")
}

func testOutboxTargets(t *testing.T, o hitl.Outbox) {
	ctx := context.Background()
	require.NoError(t, o.Enqueue(ctx, 1, []hitl.Delivery{post("q1", "U2"), post("q1", "C1"), post("q2", "C10"), post("q3", "C1")}))
	assert.Equal(t, []string{"C1", "C10", "U2"}, targets(t, o, "", 10))
	assert.Equal(t, []string{"C1", "C10"}, targets(t, o, "", 2))
	assert.Equal(t, []string{"U2"}, targets(t, o, "C10", 2), "after the last one read")
	assert.Equal(t, []string{"C10", "U2"}, targets(t, o, "C1", 10), "after is exclusive")
	assert.Empty(t, targets(t, o, "U2", 10))

	d, err := o.NextDelivery(ctx, "C10")
	require.NoError(t, err)
	assert.Equal(t, "q2", d.QuestionID, "a target that another prefixes has its own queue")
	require.NoError(t, o.Complete(ctx, d, nil))
	_, err = o.NextDelivery(ctx, "C10")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err))
	assert.Equal(t, []string{"C1", "U2"}, targets(t, o, "", 10), "a target with nothing queued is not listed")
	d, err = o.NextDelivery(ctx, "C1")
	require.NoError(t, err)
	assert.Equal(t, "q1", d.QuestionID, "the prefix's queue is untouched")
}

func testOutboxComplete(t *testing.T, o hitl.Outbox) {
	ctx := context.Background()
	require.NoError(t, o.Enqueue(ctx, 1, []hitl.Delivery{post("q1", "U2"), post("q1", "C1"), post("q10", "C1")}))
	d, err := o.NextDelivery(ctx, "U2")
	require.NoError(t, err)
	rec := &hitl.Delivered{QuestionID: "q1", Target: "U2", Channel: "D9", TS: "1700000000.000100", PostedAt: time.Unix(1700000000, 0).UTC()}
	require.NoError(t, o.Complete(ctx, d, rec))
	_, err = o.NextDelivery(ctx, "U2")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "the delivery left the queue")

	got, err := o.DeliveredAt(ctx, "D9", "1700000000.000100")
	require.NoError(t, err)
	assert.Equal(t, *rec, got, "found by its message")
	all, err := o.Delivered(ctx, "q1")
	require.NoError(t, err)
	assert.Equal(t, []hitl.Delivered{*rec}, all, "found by its question")
	_, err = o.DeliveredAt(ctx, "D9", "1700000000.000101")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "another message of the channel")
	_, err = o.DeliveredAt(ctx, "C1", "1700000000.000100")
	assert.Equal(t, fault.ENOTFOUND, fault.Code(err), "the same ts in another channel")

	d, err = o.NextDelivery(ctx, "C1")
	require.NoError(t, err)
	rec2 := &hitl.Delivered{QuestionID: "q1", Target: "C1", Channel: "C1", TS: "1700000001.000200", PostedAt: time.Unix(1700000001, 0).UTC()}
	require.NoError(t, o.Complete(ctx, d, rec2))
	all, err = o.Delivered(ctx, "q1")
	require.NoError(t, err)
	assert.ElementsMatch(t, []hitl.Delivered{*rec, *rec2}, all, "one record per target")

	d, err = o.NextDelivery(ctx, "C1")
	require.NoError(t, err)
	require.Equal(t, "q10", d.QuestionID)
	require.NoError(t, o.Complete(ctx, d, nil))
	none, err := o.Delivered(ctx, "q10")
	require.NoError(t, err)
	assert.Empty(t, none, "completing without a record records nothing")
	none, err = o.Delivered(ctx, "q")
	require.NoError(t, err)
	assert.Empty(t, none, "a prefix of another id does not match")
	assert.Empty(t, targets(t, o, "", 10))
}

func testOutboxCompleteTwice(t *testing.T, o hitl.Outbox) {
	ctx := context.Background()
	ds := []hitl.Delivery{post("q1", "U2"), post("q2", "U2")}
	require.NoError(t, o.Enqueue(ctx, 1, ds))
	require.NoError(t, o.Complete(ctx, ds[0], nil))
	rec := &hitl.Delivered{QuestionID: "q1", Target: "U2", Channel: "D9", TS: "1700000000.000100", PostedAt: time.Unix(1700000000, 0).UTC()}
	require.NoError(t, o.Complete(ctx, ds[0], rec), "no longer queued: no error")
	got, err := o.DeliveredAt(ctx, "D9", "1700000000.000100")
	require.NoError(t, err)
	assert.Equal(t, *rec, got, "and the record is kept")
	d, err := o.NextDelivery(ctx, "U2")
	require.NoError(t, err)
	assert.Equal(t, ds[1], d, "the queue's other deliveries are untouched")
}
