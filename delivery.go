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
