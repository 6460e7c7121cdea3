package slack

import (
	"context"

	goslack "github.com/slack-go/slack"
)

// slackAPI is the part of Slack's Web API the bot calls. *slack.Client is
// it; unit tests of the bot's rules use fakeAPI (fake_test.go).
type slackAPI interface {
	AuthTestContext(ctx context.Context) (*goslack.AuthTestResponse, error)
	PostMessageContext(ctx context.Context, channel string, opts ...goslack.MsgOption) (respChannel, ts string, err error)
	UpdateMessageContext(ctx context.Context, channel, ts string, opts ...goslack.MsgOption) (string, string, string, error)
	PostEphemeralContext(ctx context.Context, channel, user string, opts ...goslack.MsgOption) (string, error)
	OpenConversationContext(ctx context.Context, params *goslack.OpenConversationParameters) (*goslack.Channel, bool, bool, error)
	OpenViewContext(ctx context.Context, triggerID string, view goslack.ModalViewRequest) (*goslack.ViewResponse, error)
	// UpdateViewContext shows another page in an open modal (batch.go).
	UpdateViewContext(ctx context.Context, view goslack.ModalViewRequest, externalID, hash, viewID string) (*goslack.ViewResponse, error)
	PublishViewContext(ctx context.Context, req goslack.PublishViewContextRequest) (*goslack.ViewResponse, error)
	AddReactionContext(ctx context.Context, name string, item goslack.ItemRef) error
	GetUserGroupMembersContext(ctx context.Context, group string, opts ...goslack.GetUserGroupMembersOption) ([]string, error)
	GetPermalinkContext(ctx context.Context, params *goslack.PermalinkParameters) (string, error)
	// GetUserInfoContext reads a profile: the email fallback's address
	// (email.go).
	GetUserInfoContext(ctx context.Context, user string, options ...goslack.GetUserInfoOption) (*goslack.User, error)
	// GetUserByEmailContext finds the Slack user of an e-mail: a person
	// signed in to the web with the identity provider is that Slack user
	// (email.go).
	GetUserByEmailContext(ctx context.Context, email string) (*goslack.User, error)
	// GetConversationHistoryContext and GetConversationRepliesContext
	// look for a post a stopped replica may have made (resume.go).
	GetConversationHistoryContext(ctx context.Context, params *goslack.GetConversationHistoryParameters) (*goslack.GetConversationHistoryResponse, error)
	GetConversationRepliesContext(ctx context.Context, params *goslack.GetConversationRepliesParameters) (msgs []goslack.Message, hasMore bool, nextCursor string, err error)
}

var _ slackAPI = (*goslack.Client)(nil)
