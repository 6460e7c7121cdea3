package bot

import (
	"context"
	"errors"

	"github.com/hitlbot/hitl/fault"
	"github.com/slack-go/slack"
)

// EmailOf returns user's email from their Slack profile ("" when Slack
// shows none: the app lacks users:read.email, or the user has none), for
// the email edge.
func (b *Bot) EmailOf(ctx context.Context, user string) (string, error) {
	u, err := b.api.GetUserInfoContext(ctx, user)
	if err != nil {
		if se := (slack.SlackErrorResponse{}); errors.As(err, &se) && (se.Err == "user_not_found" || se.Err == "missing_scope") {
			return "", nil
		}
		return "", fault.Errorf(fault.EUNAVAILABLE, "slack users.info %s: %v", user, err)
	}
	return u.Profile.Email, nil
}
