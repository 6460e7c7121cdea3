package slack

import (
	"context"
	"fmt"
	"slices"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	goslack "github.com/slack-go/slack"
)

// nudgeDeliveries turns a reminder, an escalation or a reassignment into
// Slack work: a reminder is a thread reply under each of the question's
// messages (in a DM for a DM'd question) that mentions who may answer;
// an escalation updates the messages (they name the people added), says
// so in their threads and posts the question to the escalation channel;
// without an escalation channel, each person added gets it by DM;
// a reassignment updates the messages where they are, posts the question
// where the new assignees see it, and tells them.
func (b *Bot) nudgeDeliveries(ctx context.Context, ev *hitl.Event) ([]hitl.Delivery, error) {
	q, err := b.eventQuestion(ctx, ev)
	if q == nil {
		return nil, err
	}
	targets, err := b.messageTargets(ctx, q, Targets(q, b.defaultChannel()))
	if err != nil {
		return nil, err
	}
	var ds []hitl.Delivery
	add := func(kind, target string) {
		ds = append(ds, hitl.Delivery{Kind: kind, QuestionID: q.ID, Target: target})
	}
	switch ev.Type {
	case hitl.EventQuestionReminded:
		for _, t := range targets {
			add(kindRemind, t)
		}
	case hitl.EventQuestionEscalated:
		for _, t := range targets {
			if q.Reminders != nil && t == q.Reminders.EscalationChannel {
				continue // posted there already (a restart re-derived it)
			}
			add(kindUpdate, t)
			add(kindEscalate, t)
		}
		switch {
		case q.Reminders != nil && q.Reminders.EscalationChannel != "":
			if !slices.Contains(Targets(q, b.defaultChannel()), q.Reminders.EscalationChannel) {
				add(kindPost, q.Reminders.EscalationChannel)
			}
		default: // no escalation channel: each person added gets it by DM
			for _, u := range q.EscalatedTo {
				if isUser(u) && !slices.Contains(targets, u) {
					add(kindPost, u)
				}
			}
		}
	case hitl.EventQuestionReassigned:
		// Where it was shown before, even if that post is still queued
		// (it is done first: deliveries to one target go in order).
		before := q.Clone()
		before.Assignees = ev.HandedFrom
		for _, t := range Targets(before, b.defaultChannel()) {
			if !slices.Contains(targets, t) {
				targets = append(targets, t)
			}
		}
		for _, t := range targets {
			add(kindHanded, t)
		}
	}
	return ds, nil
}

// defaultChannel is where a question with no channel and no assigned
// user is posted: the default channel, else the runs channel (a run's
// questions go to the thread of its live message there).
func (b *Bot) defaultChannel() string {
	if b.cfg.DefaultChannel != "" {
		return b.cfg.DefaultChannel
	}
	return b.cfg.RunsChannel
}

// messageTargets adds to targets every target the question was delivered
// to (its messages before a reassignment, the escalation channel), so an
// update reaches each message it has.
func (b *Bot) messageTargets(ctx context.Context, q *hitl.Question, targets []string) ([]string, error) {
	out := slices.Clone(targets)
	if q.Escalated() && q.Reminders.EscalationChannel != "" && !slices.Contains(out, q.Reminders.EscalationChannel) {
		out = append(out, q.Reminders.EscalationChannel)
	}
	refs, err := b.outbox.Delivered(ctx, q.ID)
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		if !slices.Contains(out, r.Target) {
			out = append(out, r.Target)
		}
	}
	return out, nil
}

// nudge carries out a reminder, an escalation notice or a reassignment at
// one target. A question settled meanwhile is reminded of nothing.
func (b *Bot) nudge(ctx context.Context, d hitl.Delivery, q *hitl.Question) error {
	if !q.Pending() {
		return b.record(ctx, d, nil)
	}
	refs, err := b.outbox.Delivered(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("%w: %v", errStoreWrite, err)
	}
	i := slices.IndexFunc(refs, func(r hitl.Delivered) bool { return r.Target == d.Target })
	if i < 0 {
		if d.Kind == kindHanded && slices.Contains(Targets(q, b.defaultChannel()), d.Target) {
			return b.post(ctx, d, q) // a new assignee's DM: the post mentions them
		}
		return b.record(ctx, d, nil) // never posted there: nothing to remind
	}
	ref := refs[i]
	n := blocks.NudgeReminder
	switch d.Kind {
	case kindEscalate:
		n = blocks.NudgeEscalation
	case kindHanded:
		n = blocks.NudgeHanded
		msg := blocks.QuestionMessage(q, b.questionOptions(ctx, q))
		if _, _, _, err := b.api.UpdateMessageContext(ctx, ref.Channel, ref.TS,
			goslack.MsgOptionText(msg.Text, false), goslack.MsgOptionBlocks(msg.Blocks...)); err != nil {
			return err
		}
		if !slices.Contains(Targets(q, b.defaultChannel()), d.Target) {
			return b.record(ctx, d, nil) // an old assignee's DM: updated, not nudged
		}
	}
	msg := blocks.ReminderMessage(q, n, b.cfg.Access.Answerers)
	if _, _, err := b.api.PostMessageContext(ctx, ref.Channel, goslack.MsgOptionTS(ref.TS),
		goslack.MsgOptionText(msg.Text, false), goslack.MsgOptionBlocks(msg.Blocks...)); err != nil {
		return err
	}
	return b.record(ctx, d, nil)
}

// reassign hands the question to the person picked in the Reassign modal,
// as the Slack user who submitted it: the service decides and audits.
func (b *Bot) reassign(ctx context.Context, user string, s blocks.Submission) error {
	ctx, q, err := b.pendingAs(ctx, s.QuestionID, user)
	if err != nil {
		return err
	}
	_, err = b.svc.Questions.Reassign(ctx, q.ID, []string{s.Value})
	return err
}

// escalationTarget reports whether target is where q's escalation posted
// it (its escalation channel, or the DM of a person it added), which gets
// a message of its own, never one in a run's thread.
func escalationTarget(q *hitl.Question, target string) bool {
	return q.Reminders != nil && ((q.Reminders.EscalationChannel != "" && q.Reminders.EscalationChannel == target) ||
		slices.Contains(q.EscalatedTo, target))
}
