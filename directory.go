package hitl

import (
	"context"
	"strings"
)

// Directory tells who is in a Slack user group (S…): the Slack edge
// implements it over usergroups.users.list, cached with expiry. The
// Service asks it before deciding an answer, so that a user-group
// assignee or approver matches its members on every edge.
type Directory interface {
	// GroupMembers returns the Slack user ids in group. An error means
	// the group could not be read; nobody is then counted in it.
	GroupMembers(ctx context.Context, group string) ([]string, error)
}

// IsGroupID reports whether id names a Slack user group (S…), not a
// user (U…, W…) or a token.
func IsGroupID(id string) bool { return strings.HasPrefix(id, "S") && len(id) > 1 }
