package slack

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/notify"
)

// eventPage is how many events the projector reads at once.
const eventPage = 256

// project turns events of the durable log into deliveries in the durable
// outbox, moving the cursor in the same commit: creating a question never
// waits on Slack, and no event is lost or turned into deliveries twice.
func (b *Bot) project(ctx context.Context) {
	notify.Follow(ctx, b.svc.Log.Changed, b.projectOnce, func(err error) time.Duration {
		b.log.Error("slack outbox: reading events failed", "err", err)
		return b.retry.failed()
	})
}

// projectOnce enqueues deliveries for the next page of events and reports
// how many events it consumed. A page that touches questions marks open
// App Homes stale once.
func (b *Bot) projectOnce(ctx context.Context) (int, error) {
	b.enqueuing.Lock()
	defer b.enqueuing.Unlock()
	cursor, err := b.outbox.OutboxCursor(ctx)
	if err != nil {
		return 0, err
	}
	if err := b.homes.catchUp(ctx, cursor); err != nil {
		return 0, err
	}
	evs, last, err := b.svc.Log.Events(ctx, cursor, eventPage)
	if err != nil || last == cursor {
		return 0, err
	}
	var ds []hitl.Delivery
	touched := false
	for _, ev := range evs {
		more, err := b.deliveriesFor(ctx, ev)
		if err != nil {
			return 0, err
		}
		ds = append(ds, more...)
		touched = touched || touches(ev)
	}
	if err := b.outbox.Enqueue(ctx, last, ds); err != nil {
		return 0, err
	}
	b.queued(ds)
	b.homes.looked(last)
	if touched {
		b.homes.touched()
	}
	return int(last - cursor), nil
}

// enqueueOwn queues deliveries no event brought, in the projector's turn
// (so the cursor it passes on is the one the projector left: the cursor
// never moves back).
func (b *Bot) enqueueOwn(ctx context.Context, ds []hitl.Delivery) error {
	b.enqueuing.Lock()
	defer b.enqueuing.Unlock()
	cursor, err := b.outbox.OutboxCursor(ctx)
	if err != nil {
		return err
	}
	if err := b.outbox.Enqueue(ctx, cursor, ds); err != nil {
		return err
	}
	b.queued(ds)
	return nil
}

// queued notes deliveries just enqueued and wakes the workers.
func (b *Bot) queued(ds []hitl.Delivery) {
	for _, d := range ds {
		if d.Seq > b.enqueued.Load() {
			b.enqueued.Store(d.Seq)
		}
	}
	if len(ds) > 0 {
		b.work.kick()
	}
}

// deliveriesFor turns one event into Slack work. An event that settles a
// question carries no copy of it: its routing is read from the store.
func (b *Bot) deliveriesFor(ctx context.Context, ev *hitl.Event) ([]hitl.Delivery, error) {
	if ev.Type == hitl.EventAlert {
		return b.alertDeliveries(ev), nil
	}
	runs, err := b.runDeliveries(ctx, ev)
	if err != nil {
		return nil, err
	}
	qs, err := b.questionDeliveries(ctx, ev)
	ds := append(qs, runs...)
	for i := range ds {
		ds[i].Event = ev.Seq
	}
	return ds, err
}

// questionDeliveries turns a question's event into posts and updates of
// its messages.
func (b *Bot) questionDeliveries(ctx context.Context, ev *hitl.Event) ([]hitl.Delivery, error) {
	if ev.QuestionID == "" {
		return nil, nil
	}
	var kind string
	switch ev.Type {
	case hitl.EventQuestionAsked:
		kind = kindPost
	case hitl.EventQuestionAnswered, hitl.EventQuestionTimeout, hitl.EventQuestionCancelled,
		hitl.EventQuestionReopened, // pending again: its inputs come back, with the notice
		hitl.EventApprovalAdded:    // one more approval of several: the count shows it
		kind = kindUpdate
	case hitl.EventQuestionReminded, hitl.EventQuestionEscalated, hitl.EventQuestionReassigned:
		return b.nudgeDeliveries(ctx, ev) // reminder.go
	default:
		return nil, nil
	}
	q, err := b.eventQuestion(ctx, ev)
	if q == nil {
		return nil, err
	}
	targets := Targets(q, b.defaultChannel())
	if kind == kindUpdate {
		if targets, err = b.messageTargets(ctx, q, targets); err != nil {
			return nil, err
		}
	}
	if len(targets) == 0 && kind == kindPost {
		b.log.Warn("question has no channel, no assignee and no default channel is set (HITL_SLACK_CHANNEL): not posted to Slack",
			"question", ev.QuestionID)
	}
	ds := make([]hitl.Delivery, len(targets))
	for i, t := range targets {
		ds[i] = hitl.Delivery{Kind: kind, QuestionID: ev.QuestionID, Target: t}
	}
	return ds, nil
}

// eventQuestion is the question ev is about, as the event carries it or
// else as it is now, and notes the groups it is listed for; nil, and no
// error, when it was pruned since.
func (b *Bot) eventQuestion(ctx context.Context, ev *hitl.Event) (*hitl.Question, error) {
	q := ev.Question
	if q == nil {
		var err error
		switch q, err = b.svc.Questions.Question(ctx, ev.QuestionID); fault.Code(err) {
		case "":
		case fault.ENOTFOUND:
			return nil, nil // pruned since
		default:
			return nil, err
		}
	}
	b.groups.note(q)
	return q, nil
}
