package slack

import (
	"strings"

	"github.com/hitlbot/hitl"
)

// The kinds of the bot's deliveries (hitl.Delivery.Kind).
const (
	kindPost   = "post"   // post the question (rendered as it is now)
	kindUpdate = "update" // re-render the posted message in place
	// reminder.go's: a thread reply that re-notifies (remind, escalate),
	// and a reassignment (update the message there, or post it to a new
	// target, and tell the new assignees).
	kindRemind   = "remind"
	kindEscalate = "escalate"
	kindHanded   = "handed"
)

// Targets returns where a question is posted: its channel; else, with
// assignees, each assigned user's DM (user groups are mentioned in the
// default channel); else the default channel.
func Targets(q *hitl.Question, defaultChannel string) []string {
	if q.Channel != "" {
		return []string{q.Channel}
	}
	var out []string
	groups := false
	for _, a := range q.Assignees {
		if isGroup(a) {
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

// isUser reports whether a target is a user id (a DM) rather than a channel.
func isUser(target string) bool {
	return strings.HasPrefix(target, "U") || strings.HasPrefix(target, "W")
}

// isGroup reports whether an assignee is a user group.
func isGroup(id string) bool { return strings.HasPrefix(id, "S") }
