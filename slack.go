package hitl

import (
	"context"
	"strings"
	"time"
)

// SlackTaskKind is what the bot must do for a question in one place.
type SlackTaskKind string

const (
	SlackPost   SlackTaskKind = "post"   // post the question (rendered as it is now)
	SlackUpdate SlackTaskKind = "update" // re-render the posted message in place
)

// SlackTask is one entry of the bot's durable outbox. Target is a channel
// (id or name) or, for a direct message, a user id; tasks for one target
// run in order, paced to Slack's rate limits.
type SlackTask struct {
	Seq        uint64        `json:"seq"` // outbox order, set by the store
	Kind       SlackTaskKind `json:"kind"`
	QuestionID string        `json:"questionId"`
	Target     string        `json:"target"`
}

// SlackMessage records where a question was posted.
type SlackMessage struct {
	QuestionID string    `json:"questionId"`
	Target     string    `json:"target"`
	Channel    string    `json:"channel"` // the channel id Slack returned (D… for a DM)
	TS         string    `json:"ts"`
	PostedAt   time.Time `json:"postedAt"`
}

// SlackOutbox is the bot's durable state in the store: a cursor into the
// event log, the queue of Slack work derived from it, and the messages
// posted. Every method is durable when it returns.
type SlackOutbox interface {
	// SlackCursor returns the Seq of the last event turned into tasks.
	SlackCursor(ctx context.Context) (uint64, error)
	// EnqueueSlack appends tasks (setting their Seq) and moves the cursor
	// to cursor, atomically, so no event is turned into tasks twice.
	EnqueueSlack(ctx context.Context, cursor uint64, tasks []SlackTask) error
	// SlackTasks returns every queued task, in Seq order.
	SlackTasks(ctx context.Context) ([]SlackTask, error)
	// CompleteSlackTask removes task and, when msg is not nil, records msg,
	// atomically.
	CompleteSlackTask(ctx context.Context, task SlackTask, msg *SlackMessage) error
	// SlackMessages returns where question id was posted.
	SlackMessages(ctx context.Context, questionID string) ([]SlackMessage, error)
	// SlackMessageAt returns the record of message ts in channel, or ENOTFOUND.
	SlackMessageAt(ctx context.Context, channel, ts string) (SlackMessage, error)
}

// SlackTargets returns where a question goes: its channel; else, with
// assignees, each assigned user's DM (user groups are mentioned in the
// default channel); else the default channel.
func SlackTargets(q *Question, defaultChannel string) []string {
	if q.Channel != "" {
		return []string{q.Channel}
	}
	var out []string
	groups := false
	for _, a := range q.Assignees {
		if strings.HasPrefix(a, "S") {
			groups = true
			continue
		}
		out = append(out, a)
	}
	if (groups || len(out) == 0) && defaultChannel != "" {
		out = append(out, defaultChannel)
	}
	return out
}

// AnswerPolicy says who may answer from Slack. Ids are user ids (U…, W…)
// or user-group ids (S…).
type AnswerPolicy struct {
	Answerers []string // empty: anyone who can see the question
	Admins    []string // may answer anything
}

// MayAnswer reports whether user, a member of groups, may answer q: admins
// always; when q has assignees, only they; otherwise the answerers, or
// anyone when none are configured.
func (p AnswerPolicy) MayAnswer(q *Question, user string, groups []string) bool {
	in := func(ids []string) bool {
		for _, id := range ids {
			if id == user {
				return true
			}
			for _, g := range groups {
				if id == g {
					return true
				}
			}
		}
		return false
	}
	switch {
	case in(p.Admins):
		return true
	case len(q.Assignees) > 0:
		return in(q.Assignees)
	case len(p.Answerers) > 0:
		return in(p.Answerers)
	}
	return true
}

// Groups lists the user groups the policy and q mention, so the caller
// knows whose membership to look up.
func (p AnswerPolicy) Groups(q *Question) []string {
	var out []string
	for _, ids := range [][]string{p.Admins, p.Answerers, q.Assignees} {
		for _, id := range ids {
			if strings.HasPrefix(id, "S") {
				out = append(out, id)
			}
		}
	}
	return out
}

// WaitsOn reports whether q waits on user (a member of groups): it is
// assigned to them or a group of theirs, or it is unassigned and theirs to
// answer. This is a person's queue (App Home, /hitl pending).
func (p AnswerPolicy) WaitsOn(q *Question, user string, groups []string) bool {
	if len(q.Assignees) > 0 {
		return AnswerPolicy{}.MayAnswer(q, user, groups)
	}
	return p.MayAnswer(q, user, groups)
}
