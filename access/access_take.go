package access

import (
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// MayTake decides whether Slack user or user group id (a user in groups)
// may be handed q, q as it would be with its new assignees: a user must
// be allowed to answer it (never the person who asked it; one of its
// approvers when a policy rule names them); a group must be one of its
// approvers when it has any.
func (a Access) MayTake(id string, groups []string, q *hitl.Question) error {
	if hitl.IsGroupID(id) {
		if len(q.Approvers) > 0 && !slices.Contains(q.Approvers, id) {
			return fault.Errorf(fault.EFORBIDDEN, "%s cannot be handed to group %s: it is not one of its approvers (%s), named by the policy rule %q",
				q.ID, id, strings.Join(q.Approvers, ", "), q.Rule)
		}
		return nil
	}
	if err := a.mayAnswer(a.SlackPrincipal(id, groups), q); err != nil {
		return fault.Errorf(fault.EFORBIDDEN, "%s cannot be handed to %s, who may not answer it: %s", q.ID, id, fault.Message(err))
	}
	return nil
}
