package slack

import (
	"context"
	"errors"

	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/fault"
	goslack "github.com/slack-go/slack"
)

// errorText is the one place a hitl error becomes words for a Slack user:
// a late click learns who answered first, a stranger that it may not answer.
func errorText(err error) string {
	var sh shown
	if errors.As(err, &sh) {
		return string(sh)
	}
	if s, ok := blocks.SettlementFromError(err); ok {
		return blocks.AlreadySettled(s)
	}
	return blocks.ErrorText(fault.Code(err), fault.Message(err))
}

// tell shows text to user only: an ephemeral message in channel, or a DM
// when there is no channel (App Home).
func (b *Bot) tell(ctx context.Context, channel, user, text string) {
	var err error
	if channel == "" {
		_, _, err = b.api.PostMessageContext(ctx, user, goslack.MsgOptionText(text, false))
	} else {
		_, err = b.api.PostEphemeralContext(ctx, channel, user, goslack.MsgOptionText(text, false))
	}
	if err != nil {
		b.log.Warn("telling a user failed", "user", user, "channel", channel, "err", err)
	}
}
