package hitl

import (
	"context"
)

// ReassignService hands questions to other people. *Service implements
// it over the store; agent.Client over HTTP.
type ReassignService interface {
	// Reassign hands pending question id to to (Slack user and user-group
	// ids), who replace its assignees, as the principal in ctx. Errors:
	// EINVALID for bad ids, ENOTFOUND, ECONFLICT when it is settled,
	// EFORBIDDEN when the principal may not answer it or a person in to
	// may not (the message names the rule).
	Reassign(ctx context.Context, id string, to []string) (*Question, error)
}
