package slack

import (
	"context"
	"fmt"
)

// webLinkText answers /hitl web: a one-time link that signs the person
// who typed it in to the web inbox as their Slack user, with the rights
// config gives them (the root decides whether they may sign in at all).
func (b *Bot) webLinkText(ctx context.Context, user string, _ []string) string {
	if b.cfg.WebLink == nil {
		return "This hitl does not serve a web inbox."
	}
	link, err := b.cfg.WebLink(ctx, b.cfg.Access.SlackPrincipal(user, b.groups.groupsOf(ctx, user)))
	if err != nil {
		return errorText(err)
	}
	return fmt.Sprintf("<%s|Open the hitl web inbox> — this link signs you in once, within 10 minutes. Do not share it.", link)
}
