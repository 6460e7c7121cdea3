package slack

import (
	"context"
	"errors"
	"strings"

	"github.com/hitlbot/hitl/fault"
	goslack "github.com/slack-go/slack"
)

// EmailOf returns user's email from their Slack profile ("" when Slack
// shows none: the app lacks users:read.email, or the user has none), for
// the email edge.
func (b *Bot) EmailOf(ctx context.Context, user string) (string, error) {
	u, err := b.api.GetUserInfoContext(ctx, user)
	if err != nil {
		if se := (goslack.SlackErrorResponse{}); errors.As(err, &se) && (se.Err == "user_not_found" || se.Err == "missing_scope") {
			return "", nil
		}
		return "", fault.Errorf(fault.EUNAVAILABLE, "slack users.info %s: %v", user, err)
	}
	return u.Profile.Email, nil
}

// UserByEmail returns the Slack user whose profile has e-mail ("" when
// none does, or the app lacks users:read.email): a person signed in to the
// web with the identity provider under that e-mail is that Slack user,
// one person with their clicks. Deleted users and bots are nobody.
func (b *Bot) UserByEmail(ctx context.Context, email string) (string, error) {
	u, err := b.api.GetUserByEmailContext(ctx, email)
	if err != nil {
		if se := (goslack.SlackErrorResponse{}); errors.As(err, &se) && (se.Err == "users_not_found" || se.Err == "missing_scope") {
			return "", nil
		}
		if s := err.Error(); s == "users_not_found" || s == "missing_scope" {
			return "", nil
		}
		return "", fault.Errorf(fault.EUNAVAILABLE, "slack users.lookupByEmail: %v", err)
	}
	if u.Deleted || u.IsBot || !strings.EqualFold(u.Profile.Email, email) {
		return "", nil
	}
	return u.ID, nil
}
