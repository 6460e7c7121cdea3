package bot

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
)

// project turns events of the durable log into Slack tasks in the durable
// outbox, moving the cursor in the same commit: creating a question never
// waits on Slack, and no event is lost or turned into tasks twice.
func (b *Bot) project(ctx context.Context) {
	for ctx.Err() == nil {
		changed := b.events.Changed()
		n, err := b.projectOnce(ctx)
		if err != nil {
			b.log.Error("slack outbox: reading events failed", "err", err)
			if !sleep(ctx, b.cfg.RetryMin) {
				return
			}
			continue
		}
		if n > 0 {
			continue
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// projectOnce enqueues tasks for the next batch of events and reports how
// many events it consumed.
func (b *Bot) projectOnce(ctx context.Context) (int, error) {
	cursor, err := b.outbox.SlackCursor(ctx)
	if err != nil {
		return 0, err
	}
	evs, last, err := b.events.Events(ctx, cursor, 256)
	if err != nil || last == cursor {
		return 0, err
	}
	var tasks []hitl.SlackTask
	for _, ev := range evs {
		ts, err := b.tasksFor(ctx, ev)
		if err != nil {
			return 0, err
		}
		tasks = append(tasks, ts...)
		b.homes.touched(ev)
	}
	if err := b.outbox.EnqueueSlack(ctx, last, tasks); err != nil {
		return 0, err
	}
	if len(tasks) > 0 {
		b.work.kick()
	}
	return int(last - cursor), nil
}

// tasksFor turns one event into Slack work. An event that settles a
// question carries no copy of it: its routing is read from the store.
func (b *Bot) tasksFor(ctx context.Context, ev *hitl.Event) ([]hitl.SlackTask, error) {
	if ev.QuestionID == "" {
		return nil, nil
	}
	var kind hitl.SlackTaskKind
	switch ev.Type {
	case hitl.EventQuestionAsked:
		kind = hitl.SlackPost
	case hitl.EventQuestionAnswered, hitl.EventQuestionTimeout, hitl.EventQuestionCancelled,
		hitl.EventQuestionReopened: // pending again: its inputs come back, with the notice
		kind = hitl.SlackUpdate
	default:
		return nil, nil
	}
	q := ev.Question
	if q == nil {
		var err error
		switch q, err = b.questions.Question(ctx, ev.QuestionID); hitl.ErrorCode(err) {
		case "":
		case hitl.ENOTFOUND:
			return nil, nil // pruned since
		default:
			return nil, err
		}
	}
	targets := hitl.SlackTargets(q, b.cfg.DefaultChannel)
	if len(targets) == 0 && kind == hitl.SlackPost {
		b.log.Warn("question has no channel, no assignee and no default channel is set (HITL_SLACK_CHANNEL): not posted to Slack",
			"question", ev.QuestionID)
	}
	tasks := make([]hitl.SlackTask, len(targets))
	for i, t := range targets {
		tasks[i] = hitl.SlackTask{Kind: kind, QuestionID: ev.QuestionID, Target: t}
	}
	return tasks, nil
}

// backoff doubles d within the configured bounds.
func (b *Bot) backoff(d time.Duration) time.Duration {
	if d < b.cfg.RetryMin {
		return b.cfg.RetryMin
	}
	d *= 2
	if d > b.cfg.RetryMax {
		d = b.cfg.RetryMax
	}
	return d
}
