package slack

import (
	"context"
	"errors"
	"strconv"
	"strings"

	goslack "github.com/slack-go/slack"
)

// countedAPI reports every failed Slack Web API call to report (method,
// error): Slack's error string ("channel_not_found"), "ratelimited" for
// a 429, "http_<status>" for other HTTP failures, "network" or "other".
// Methods it does not wrap pass through uncounted.
type countedAPI struct {
	slackAPI
	report func(method, code string)
}

func (c countedAPI) note(method string, err error) {
	if err != nil && !errors.Is(err, context.Canceled) {
		c.report(method, apiErrorCode(err))
	}
}

func apiErrorCode(err error) string {
	var rl *goslack.RateLimitedError
	var sr goslack.SlackErrorResponse
	var se goslack.StatusCodeError
	switch {
	case errors.As(err, &rl):
		return "ratelimited"
	case errors.As(err, &sr):
		return sr.Err
	case errors.As(err, &se):
		return "http_" + strconv.Itoa(se.Code)
	case transient(err):
		return "network"
	}
	if s := err.Error(); len(s) <= 40 && !strings.ContainsAny(s, " :/") {
		return s // slack-go returns some API errors as bare strings
	}
	return "other"
}

func (c countedAPI) AuthTestContext(ctx context.Context) (*goslack.AuthTestResponse, error) {
	r, err := c.slackAPI.AuthTestContext(ctx)
	c.note("auth.test", err)
	return r, err
}

func (c countedAPI) PostMessageContext(ctx context.Context, channel string, opts ...goslack.MsgOption) (string, string, error) {
	ch, ts, err := c.slackAPI.PostMessageContext(ctx, channel, opts...)
	c.note("chat.postMessage", err)
	return ch, ts, err
}

func (c countedAPI) UpdateMessageContext(ctx context.Context, channel, ts string, opts ...goslack.MsgOption) (string, string, string, error) {
	a, b, d, err := c.slackAPI.UpdateMessageContext(ctx, channel, ts, opts...)
	c.note("chat.update", err)
	return a, b, d, err
}

func (c countedAPI) PostEphemeralContext(ctx context.Context, channel, user string, opts ...goslack.MsgOption) (string, error) {
	ts, err := c.slackAPI.PostEphemeralContext(ctx, channel, user, opts...)
	c.note("chat.postEphemeral", err)
	return ts, err
}

func (c countedAPI) OpenConversationContext(ctx context.Context, p *goslack.OpenConversationParameters) (*goslack.Channel, bool, bool, error) {
	ch, a, b, err := c.slackAPI.OpenConversationContext(ctx, p)
	c.note("conversations.open", err)
	return ch, a, b, err
}

func (c countedAPI) OpenViewContext(ctx context.Context, triggerID string, v goslack.ModalViewRequest) (*goslack.ViewResponse, error) {
	r, err := c.slackAPI.OpenViewContext(ctx, triggerID, v)
	c.note("views.open", err)
	return r, err
}

func (c countedAPI) PublishViewContext(ctx context.Context, req goslack.PublishViewContextRequest) (*goslack.ViewResponse, error) {
	r, err := c.slackAPI.PublishViewContext(ctx, req)
	c.note("views.publish", err)
	return r, err
}

func (c countedAPI) AddReactionContext(ctx context.Context, name string, item goslack.ItemRef) error {
	err := c.slackAPI.AddReactionContext(ctx, name, item)
	c.note("reactions.add", err)
	return err
}

func (c countedAPI) GetUserGroupMembersContext(ctx context.Context, group string, opts ...goslack.GetUserGroupMembersOption) ([]string, error) {
	m, err := c.slackAPI.GetUserGroupMembersContext(ctx, group, opts...)
	c.note("usergroups.users.list", err)
	return m, err
}

func (c countedAPI) GetPermalinkContext(ctx context.Context, p *goslack.PermalinkParameters) (string, error) {
	l, err := c.slackAPI.GetPermalinkContext(ctx, p)
	c.note("chat.getPermalink", err)
	return l, err
}
