package bot

import (
	"context"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// profileReader reads a Slack user's profile (users.info).
type profileReader interface {
	GetUserInfoContext(ctx context.Context, user string, options ...slack.GetUserInfoOption) (*slack.User, error)
}

var _ profileReader = (*slack.Client)(nil)

// EmailOf returns user's email from their Slack profile ("" when Slack
// shows none: the app lacks users:read.email, or the user has none), for
// the email edge.
func (b *Bot) EmailOf(ctx context.Context, user string) (string, error) {
	r, ok := b.api.(profileReader)
	if !ok {
		return "", nil
	}
	u, err := r.GetUserInfoContext(ctx, user)
	if err != nil {
		if se, ok := err.(slack.SlackErrorResponse); ok && (se.Err == "user_not_found" || se.Err == "missing_scope") {
			return "", nil
		}
		return "", hitl.Errorf(hitl.EUNAVAILABLE, "slack users.info %s: %v", user, err)
	}
	return u.Profile.Email, nil
}
